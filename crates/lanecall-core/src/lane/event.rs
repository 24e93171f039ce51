//! What the lane is told: sensor readings and people's actions, each with the
//! time it happened.

use crate::pins::{PinSet, Side};
use crate::wall::DayDate;

/// Milliseconds since the journal started, from a monotonic clock.
pub type Millis = u64;

/// An event with its time.
#[derive(Clone, Debug, PartialEq)]
pub struct Stamped<E> {
    pub t: Millis,
    pub event: E,
}

/// One input to the lane.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    Sensor(Sensor),
    Panel(Panel),
}

/// What the lane's sensors reported.
#[derive(Clone, Debug, PartialEq)]
pub enum Sensor {
    /// An edge of the infrared beam across the foul line.
    FoulBeam { broken: bool },
    /// The ball detector at the pin deck saw a ball.
    Ball,
    /// The ball entered a channel (gutter).
    Channel { side: Side },
    /// A tactile button on the guide rail was pressed.
    Button { name: String },
    /// One line from the pinsetter port, exactly as received.
    Serial { line: String },
    /// The pinsetter port was opened (`up`) or lost.
    SerialLink { up: bool },
    /// An adjacent lane, as the centre's broker tells it: a bowler there is
    /// at the foul line or a ball is in play (`busy`), or no longer.
    Neighbour { lane: u32, busy: bool },
    /// A string pinsetter's ten pin switches, read once the deck settled:
    /// what stands after a ball, or the deck the machine set.
    Deck { after: DeckAfter, standing: PinSet },
    /// The pin switches could not be read as a deck: reported, never
    /// scored; the pinsetter is at fault until it sets a deck.
    DeckFault { fault: DeckFault, pins: PinSet },
}

/// When a string pinsetter's deck was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeckAfter {
    /// After a ball: the pins still standing (a `PINS`).
    Ball,
    /// After the machine set the deck: the pins set (a `READY`).
    Set,
}

impl DeckAfter {
    pub fn as_str(self) -> &'static str {
        match self {
            DeckAfter::Ball => "ball",
            DeckAfter::Set => "set",
        }
    }
}

/// Why the pin switches gave no deck.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeckFault {
    /// A switch (`pins`) kept changing faster than a pin can fall or be set.
    Flicker,
    /// Switches (`pins`, the ones still changing) never came to rest.
    Unsettled,
}

impl DeckFault {
    pub const ALL: [DeckFault; 2] = [DeckFault::Flicker, DeckFault::Unsettled];

    pub fn as_str(self) -> &'static str {
        match self {
            DeckFault::Flicker => "flicker",
            DeckFault::Unsettled => "unsettled",
        }
    }

    pub fn parse(s: &str) -> Option<DeckFault> {
        Self::ALL.into_iter().find(|f| f.as_str() == s)
    }

    /// For the judge: `pin switches: pin 4 flickers`.
    pub fn describe(self, pins: PinSet) -> String {
        let list: Vec<String> = pins.iter().map(|p| p.number().to_string()).collect();
        let list = list.join(", ");
        match self {
            DeckFault::Flicker => format!("pin switches: pin {list} flickers"),
            DeckFault::Unsettled => {
                format!("pin switches: the deck never settled (pin {list} still changing)")
            }
        }
    }
}

/// A person's action on the panel, with who did it.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    pub by: Option<String>,
    /// Whether `by` is the chief judge (logged in with the shared judge
    /// PIN), who may withdraw any judge's action at any time.
    pub chief: bool,
    /// The centre's command id, when the action came as a command: a
    /// lane runs each id once, even across a restart (mqtt.md).
    pub cmd: Option<String>,
    pub action: Action,
}

impl Panel {
    /// An action by `by`, not the chief judge's, not a command.
    pub fn new(by: Option<String>, action: Action) -> Panel {
        Panel {
            by,
            chief: false,
            cmd: None,
            action,
        }
    }
}

/// Sight class (IBSA).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Class {
    B1,
    B2,
    B3,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::B1 => "B1",
            Class::B2 => "B2",
            Class::B3 => "B3",
        }
    }
}

/// A bowler as the panel names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bowler {
    pub name: String,
    pub class: Class,
    /// Pins added per game ([`super::handicap`]).
    pub handicap: super::Handicap,
    pub team: Option<String>,
    /// How the speaker talks to this bowler.
    pub voice: Voice,
}

/// The callouts' language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Ru,
    En,
}

impl Language {
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Ru => "ru",
            Language::En => "en",
        }
    }
}

/// How much the speaker says after a bowler's ball.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verbosity {
    /// The standing pins' numbers and the marks (strike, spare, side,
    /// channel; split only with the extras on).
    #[default]
    Pins,
    /// The marks, and how many pins stand.
    Short,
    /// The marks, and only the standing pins hidden behind another
    /// standing pin (the 5 behind the 1, the 8 behind the 2, the 9
    /// behind the 3), the side and the channel; with none hidden, as
    /// [`Verbosity::Short`].
    Hidden,
    /// Nothing (the bowler has their own assistant, or asked for quiet).
    Off,
}

impl Verbosity {
    pub fn as_str(self) -> &'static str {
        match self {
            Verbosity::Pins => "pins",
            Verbosity::Short => "short",
            Verbosity::Hidden => "hidden",
            Verbosity::Off => "off",
        }
    }
}

/// A bowler's voice settings, from the lineup: `"voice"`, `"lang"` and
/// `"extras"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Voice {
    pub verbosity: Verbosity,
    /// `None`: the lane's language.
    pub language: Option<Language>,
    /// Whether the speaker says "split" and reads the score on request to
    /// this bowler (training); `None`: the lane's `speaker_extras`.
    pub extras: Option<bool>,
}

/// What a judge or assistant can do on the panel.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Lineup {
        bowlers: Vec<Bowler>,
        /// The centre's id of the block this lineup is for (`"RR-B1"`),
        /// when the centre sent it (added later): the lane calls the
        /// block by it.
        block: Option<String>,
        /// The block's games as the centre's programme has them, when
        /// it sent them (added later): the block starts with these or
        /// not at all.
        games: Option<u32>,
    },
    StartBlock {
        /// 1..=12; the lane refuses anything else.
        games: u32,
    },
    BlindfoldCheck {
        bowler: String,
        ok: bool,
    },
    BlindfoldAdjust {
        bowler: String,
    },
    /// A judge asks for a new check of a B1 bowler's blindfold: the last
    /// check no longer holds.
    BlindfoldRecheck {
        bowler: String,
    },
    Substitute {
        out: String,
        incoming: Bowler,
    },
    Correct {
        bowler: String,
        game: u8,
        frame: u8,
        ball: u8,
        standing: PinSet,
        /// Pins entered more than once (a slip on the pin pad): with the
        /// rule `checked_inputs` the correction is refused, so it is kept
        /// as entered.
        twice: PinSet,
        /// `None` keeps the ball's foul as recorded.
        foul: Option<bool>,
        /// The balls after it in the same game, re-entered by the judge in
        /// order from the next one (empty: they stay as recorded). A foul
        /// called or withdrawn after a later ball was bowled at the deck
        /// the ball left needs those balls re-entered (rules.md).
        later: Vec<LaterBall>,
    },
    Penalty {
        bowler: String,
        reason: String,
    },
    Hold {
        on: bool,
        reason: Option<String>,
    },
    ManualPins {
        standing: PinSet,
        /// Pins entered more than once (a slip on the pin pad): the entry
        /// is refused, so it is kept as entered.
        twice: PinSet,
    },
    /// A judge declares the last ball dead: it does not count and is
    /// bowled again at the deck it was bowled at by the rules.
    DeadBall,
    EndBlock,
    /// A judge takes back an action shortly after making it: the one of
    /// kind `of` journaled at `at` (for a bowler's penalty or blindfold,
    /// that bowler's). The journal keeps both.
    Withdraw {
        of: Withdrawable,
        at: Millis,
        bowler: Option<String>,
    },
    /// The competition day's date, from someone who knows it while the
    /// lane's own clock cannot be trusted: it is taken over the header's
    /// `started_at`, and a date other than the day's begins a new day.
    Date {
        date: DayDate,
        from: DateFrom,
    },
}

/// Who gave a `date`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateFrom {
    /// A judge confirmed or corrected it on the panel (`by` names them).
    Judge,
    /// The centre's clock, synchronised, over MQTT.
    Centre,
    /// The lane's own clock, once synchronised.
    Clock,
}

impl DateFrom {
    pub const ALL: [DateFrom; 3] = [DateFrom::Judge, DateFrom::Centre, DateFrom::Clock];

    pub fn as_str(self) -> &'static str {
        match self {
            DateFrom::Judge => "judge",
            DateFrom::Centre => "centre",
            DateFrom::Clock => "clock",
        }
    }

    pub fn parse(s: &str) -> Option<DateFrom> {
        Self::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

/// The actions a `withdraw` can take back. A `hold` is taken back by the
/// opposite `hold` and a `correct` by another `correct`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Withdrawable {
    Penalty,
    BlindfoldCheck,
    BlindfoldAdjust,
    BlindfoldRecheck,
    ManualPins,
}

impl Withdrawable {
    pub const ALL: [Withdrawable; 5] = [
        Withdrawable::Penalty,
        Withdrawable::BlindfoldCheck,
        Withdrawable::BlindfoldAdjust,
        Withdrawable::BlindfoldRecheck,
        Withdrawable::ManualPins,
    ];

    /// The `ev` of the action taken back.
    pub fn as_str(self) -> &'static str {
        match self {
            Withdrawable::Penalty => "penalty",
            Withdrawable::BlindfoldCheck => "blindfold_check",
            Withdrawable::BlindfoldAdjust => "blindfold_adjust",
            Withdrawable::BlindfoldRecheck => "blindfold_recheck",
            Withdrawable::ManualPins => "manual_pins",
        }
    }

    pub fn parse(ev: &str) -> Option<Withdrawable> {
        Self::ALL.into_iter().find(|w| w.as_str() == ev)
    }

    /// Whether it names a bowler (all but the manual pins' ball).
    pub fn of_bowler(self) -> bool {
        self != Withdrawable::ManualPins
    }
}

/// A later ball re-entered with a correction: what stood after it, as the
/// rules count it (against the deck the rules expect), and its foul.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaterBall {
    pub standing: PinSet,
    /// Pins entered more than once, as for the corrected ball.
    pub twice: PinSet,
    /// `None` keeps the ball's foul as recorded.
    pub foul: Option<bool>,
}

impl Action {
    /// A lineup as a judge types it on the panel: no centre's block id,
    /// no games given.
    pub fn lineup(bowlers: Vec<Bowler>) -> Action {
        Action::Lineup {
            bowlers,
            block: None,
            games: None,
        }
    }

    /// The journal's `ev` for this action.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Lineup { .. } => "lineup",
            Action::StartBlock { .. } => "start_block",
            Action::BlindfoldCheck { .. } => "blindfold_check",
            Action::BlindfoldAdjust { .. } => "blindfold_adjust",
            Action::BlindfoldRecheck { .. } => "blindfold_recheck",
            Action::Substitute { .. } => "substitute",
            Action::Correct { .. } => "correct",
            Action::Penalty { .. } => "penalty",
            Action::Hold { .. } => "hold",
            Action::ManualPins { .. } => "manual_pins",
            Action::DeadBall => "dead_ball",
            Action::EndBlock => "end_block",
            Action::Withdraw { .. } => "withdraw",
            Action::Date { .. } => "date",
        }
    }
}

impl Sensor {
    /// The journal's `ev` for this reading.
    pub fn name(&self) -> &'static str {
        match self {
            Sensor::FoulBeam { .. } => "foul_beam",
            Sensor::Ball => "ball",
            Sensor::Channel { .. } => "channel",
            Sensor::Button { .. } => "button",
            Sensor::Serial { .. } => "serial",
            Sensor::SerialLink { .. } => "serial_link",
            Sensor::Neighbour { .. } => "neighbour",
            Sensor::Deck { .. } => "deck",
            Sensor::DeckFault { .. } => "deck_fault",
        }
    }
}
