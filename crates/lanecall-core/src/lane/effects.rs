//! Reading what the lane did: accessors on one [`Effect`] and on a run of
//! them ([`Effects`]), and a bowler's sheet ([`Lane::sheet`]), so a
//! scenario reads as journal in, sheet out: the callouts, the outputs, the
//! incidents and the refusals of a run, without matching each variant.

use super::scoring::{self, Sheet};
use super::{Callout, Conduct, Effect, Lane, OutputChange, Refusal};
use crate::lane::event::Millis;

impl Effect {
    /// The callout, if this effect is one.
    pub fn as_callout(&self) -> Option<&Callout> {
        match self {
            Effect::Callout(c) => Some(c),
            _ => None,
        }
    }

    /// The output change, if this effect is one.
    pub fn as_output(&self) -> Option<&OutputChange> {
        match self {
            Effect::Output(o) => Some(o),
            _ => None,
        }
    }

    /// The incident raised or updated, if this effect is one.
    pub fn as_conduct(&self) -> Option<&Conduct> {
        match self {
            Effect::Conduct(c) => Some(c),
            _ => None,
        }
    }

    /// Why the input was refused, if it was.
    pub fn as_refusal(&self) -> Option<&Refusal> {
        match self {
            Effect::Refused(r) => Some(r),
            _ => None,
        }
    }

    /// When and how many pinsetter lines were lost, if this effect says so.
    pub fn as_serial_gap(&self) -> Option<(Millis, u8)> {
        match self {
            Effect::SerialGap { t, lost } => Some((*t, *lost)),
            _ => None,
        }
    }
}

/// A run of effects (what [`Lane::handle`] and [`Lane::tick`] pushed), read
/// by kind, each in the order the lane gave it.
pub trait Effects {
    /// The callouts.
    fn callouts(&self) -> Vec<Callout>;
    /// What each callout says, as its words' tokens.
    fn said(&self) -> Vec<Vec<String>>;
    /// The output changes.
    fn outputs(&self) -> Vec<OutputChange>;
    /// The incidents raised or updated.
    fn conducts(&self) -> Vec<Conduct>;
    /// The refusals.
    fn refusals(&self) -> Vec<Refusal>;
    /// The pinsetter's lost lines: when, and how many.
    fn serial_gaps(&self) -> Vec<(Millis, u8)>;
    /// Whether the lane's state changed (an input taken or a timer fired).
    fn changed(&self) -> bool;
}

impl Effects for [Effect] {
    fn callouts(&self) -> Vec<Callout> {
        self.iter()
            .filter_map(Effect::as_callout)
            .copied()
            .collect()
    }

    fn said(&self) -> Vec<Vec<String>> {
        self.iter()
            .filter_map(Effect::as_callout)
            .map(|c| c.words().tokens())
            .collect()
    }

    fn outputs(&self) -> Vec<OutputChange> {
        self.iter().filter_map(Effect::as_output).copied().collect()
    }

    fn conducts(&self) -> Vec<Conduct> {
        self.iter()
            .filter_map(Effect::as_conduct)
            .cloned()
            .collect()
    }

    fn refusals(&self) -> Vec<Refusal> {
        self.iter()
            .filter_map(Effect::as_refusal)
            .cloned()
            .collect()
    }

    fn serial_gaps(&self) -> Vec<(Millis, u8)> {
        self.iter().filter_map(Effect::as_serial_gap).collect()
    }

    fn changed(&self) -> bool {
        self.contains(&Effect::Changed)
    }
}

impl Lane {
    /// The sheet of an entry's game (indexes into [`Lane::entries`] and
    /// its `games`), scored by the lane's rules; `None` if there is no
    /// such game.
    pub fn sheet(&self, entry: usize, game: usize) -> Option<Sheet> {
        let balls = self.entries.get(entry)?.games.get(game)?;
        Some(scoring::sheet(balls, self.rules.fouls_count()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::{Action, Bowler, Class, Event, Panel, PinSet, Rules, Sensor};
    use crate::pinsetter::{Body, Message, format_line};

    fn judge(action: Action) -> Event {
        Event::Panel(Panel::new(Some("Judge".into()), action))
    }

    /// Journal in (a lineup, a block, a ball over the line that knocks down
    /// nine), sheet out.
    #[test]
    fn a_scenario_reads_as_events_in_and_sheet_out() {
        let mut lane = Lane::new(1, Rules::default());
        let mut fx = Vec::new();
        let anna = Bowler {
            name: "Anna".into(),
            class: Class::B2,
            handicap: 0,
            team: None,
            voice: Default::default(),
        };
        lane.handle(0, &judge(Action::lineup(vec![anna])), &mut fx);
        lane.handle(0, &judge(Action::StartBlock { games: 1 }), &mut fx);
        let serial = |seq, body| {
            Event::Sensor(Sensor::Serial {
                line: format_line(&Message { seq, body }),
            })
        };
        lane.handle(500, &serial(0, Body::Ready(PinSet::FULL)), &mut fx);
        assert!(fx.refusals().is_empty(), "{fx:?}");
        fx.clear();

        lane.handle(
            1_000,
            &Event::Sensor(Sensor::FoulBeam { broken: true }),
            &mut fx,
        );
        lane.handle(
            1_050,
            &Event::Sensor(Sensor::FoulBeam { broken: false }),
            &mut fx,
        );
        lane.handle(3_500, &Event::Sensor(Sensor::Ball), &mut fx);
        let seven = PinSet::from_mask("0000001000").unwrap();
        lane.handle(6_000, &serial(1, Body::Pins(seven)), &mut fx);
        assert!(fx.refusals().is_empty(), "{fx:?}");
        assert!(fx.changed());
        assert_eq!(fx.said().len(), 1, "{fx:?}");
        assert_eq!(fx.callouts()[0].standing(), seven);
        assert!(fx.outputs().is_empty(), "no foul, no lamp: {fx:?}");
        assert!(fx.serial_gaps().is_empty());

        let sheet = lane.sheet(0, 0).expect("Anna's first game");
        let marks: Vec<String> = sheet.frames.iter().map(|f| f.marks()).collect();
        assert_eq!(marks, ["9"]);
        assert_eq!(lane.sheet(0, 1), None);

        // A ball nobody is up for is refused, and nothing else happens.
        fx.clear();
        lane.handle(7_000, &judge(Action::StartBlock { games: 1 }), &mut fx);
        assert_eq!(fx.refusals().len(), 1, "{fx:?}");
        assert!(!fx.changed() && fx.callouts().is_empty() && fx.conducts().is_empty());
    }
}
