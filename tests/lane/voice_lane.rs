//! The lane's callouts through the voice: what the speaker plays after a
//! ball is the pack's clips for the core's words, in the bowler's language
//! and verbosity, and the rail's repeat button plays it again. In
//! competition (the default) it says only what IBSA allows: no "split",
//! no score read aloud; a lane or a bowler with the extras on hears both.

use std::sync::{Arc, Mutex};

use crate::support;

use lanecall::config::SpeakerConfig;
use lanecall::lane::{
    Action, Bowler, Class, Effect, Event, Lane, Language, Panel, PinSet, Refusal, Rules, Sensor,
    Verbosity, Voice as BowlerVoice,
};
use lanecall::pinsetter::{Body, Message, format_line};
use lanecall::ports::CalloutSink;
use lanecall::speaker::Voice;
use lanecall::speaker::pack::{Clip, VoicePack};
use lanecall::speaker::phrase;
use lanecall::speaker::player::{AudioOut, CLIP_GAP, render};

/// A sound card that keeps what it was given.
struct Recorder(Arc<Mutex<Vec<Vec<Vec<i16>>>>>);

impl AudioOut for Recorder {
    fn open(&mut self) -> Result<String, String> {
        Ok("recorder".into())
    }
    fn play(&mut self, clips: &[Clip], _volume: f32) -> Result<(), String> {
        let samples = clips.iter().map(|c| c.samples.to_vec()).collect();
        self.0.lock().unwrap().push(samples);
        Ok(())
    }
    fn close(&mut self) {}
}

/// What [`Rendered`] was given and how it sounded.
struct Sounded {
    clips: Vec<Vec<i16>>,
    rate: u32,
    sound: Vec<i16>,
}

/// A sound card that renders what it is given through rodio's device-free
/// player, as the speaker would play it.
struct Rendered(Arc<Mutex<Vec<Sounded>>>);

impl AudioOut for Rendered {
    fn open(&mut self) -> Result<String, String> {
        Ok("rendered".into())
    }
    fn play(&mut self, clips: &[Clip], _volume: f32) -> Result<(), String> {
        let (rate, sound) = render(clips, CLIP_GAP);
        self.0.lock().unwrap().push(Sounded {
            clips: clips.iter().map(|c| c.samples.to_vec()).collect(),
            rate,
            sound,
        });
        Ok(())
    }
    fn close(&mut self) {}
}

/// Waits for the speaker's thread to have played `n` utterances.
fn wait_for<T>(log: &Mutex<Vec<T>>, n: usize) {
    support::eventually(&format!("{n} callouts played"), || {
        let played = log.lock().unwrap().len();
        if played >= n {
            Ok(())
        } else {
            Err(format!("{played} played"))
        }
    });
}

/// What the recorder holds once it has `n` utterances, after a moment in
/// which no more may come.
fn nothing_more<T: Clone>(log: &Mutex<Vec<T>>, n: usize, why: &str) -> Vec<T> {
    wait_for(log, n);
    // Time passing, in which the test asserts nothing more was said.
    std::thread::sleep(std::time::Duration::from_millis(50));
    let played = log.lock().unwrap().clone();
    assert_eq!(played.len(), n, "{why}");
    played
}

fn bowler(name: &str, verbosity: Verbosity, language: Option<Language>) -> Bowler {
    Bowler {
        name: name.into(),
        class: Class::B2,
        handicap: 0,
        team: None,
        voice: BowlerVoice {
            verbosity,
            language,
            extras: None,
        },
    }
}

/// A bowler with their own extras setting.
fn with_extras(mut b: Bowler, extras: bool) -> Bowler {
    b.voice.extras = Some(extras);
    b
}

/// Names the clips the recorder holds: `ru:n7`, `en:strike`; the silence
/// between two words (`phrase::PAUSE`) is left out.
fn names(played: &[Vec<i16>]) -> Vec<String> {
    let packs = [
        VoicePack::builtin(Language::Ru),
        VoicePack::builtin(Language::En),
    ];
    played
        .iter()
        .filter(|samples| samples.iter().any(|&s| s != 0))
        .map(|samples| {
            packs
                .iter()
                .find_map(|pack| {
                    phrase::CLIPS
                        .iter()
                        .find(|n| pack.get(n).is_some_and(|c| *c.samples == **samples))
                        .map(|n| format!("{}:{n}", pack.language().as_str()))
                })
                .unwrap_or_else(|| "unknown clip".into())
        })
        .collect()
}

struct Fixture {
    lane: Lane,
    voice: Voice,
    played: Arc<Mutex<Vec<Vec<Vec<i16>>>>>,
    t: u64,
    seq: u8,
}

impl Fixture {
    /// A competition lane (the default rules: no extras).
    fn new(bowlers: Vec<Bowler>) -> Fixture {
        Fixture::under(Rules::default(), bowlers)
    }

    fn under(rules: Rules, bowlers: Vec<Bowler>) -> Fixture {
        let played = Arc::new(Mutex::new(Vec::new()));
        let config = SpeakerConfig::default(); // Russian, 8 s stale
        let voice = Voice::with_output(&config, Box::new(Recorder(played.clone())));
        let mut f = Fixture {
            lane: Lane::new(1, rules),
            voice,
            played,
            t: 0,
            seq: 0,
        };
        f.panel(Action::lineup(bowlers));
        f.panel(Action::StartBlock { games: 1 });
        f.serial(Body::Ready(PinSet::FULL));
        f
    }

    fn event(&mut self, event: Event) -> Vec<Effect> {
        self.t += 1000;
        let mut out = Vec::new();
        self.lane.handle(self.t, &event, &mut out);
        for e in &out {
            match e {
                Effect::Callout(c) => {
                    let bowler = c
                        .bowler
                        .map(|i| self.lane.entries()[i as usize].bowler.clone());
                    self.voice.say(c, bowler.as_ref());
                }
                Effect::Conduct(c) => self.voice.conduct(c),
                _ => {}
            }
        }
        out
    }

    fn panel(&mut self, action: Action) {
        self.event(Event::Panel(Panel::new(None, action)));
    }

    fn button(&mut self, name: &str) -> Vec<Effect> {
        self.event(Event::Sensor(Sensor::Button { name: name.into() }))
    }

    fn serial(&mut self, body: Body) {
        let line = format_line(&Message {
            seq: self.seq,
            body,
        });
        self.seq += 1;
        self.event(Event::Sensor(Sensor::Serial { line }));
    }

    /// A ball's pin report, then the pinsetter's cycle: the next deck set
    /// a few seconds later, as the lane needs before another report.
    fn ball(&mut self, standing: &str) {
        self.serial(Body::Pins(PinSet::from_mask(standing).unwrap()));
        self.t += 3000;
        let deck = self.lane.up().map_or(PinSet::FULL, |u| u.at.before);
        self.serial(Body::Ready(deck));
    }

    /// What was played, once the speaker thread has played all `n`.
    fn played(&self, n: usize) -> Vec<Vec<Vec<i16>>> {
        wait_for(&self.played, n);
        self.played.lock().unwrap().clone()
    }
}

#[test]
fn in_competition_a_split_is_called_by_its_pins_and_the_repeat_button_says_it_again() {
    let mut f = Fixture::new(vec![bowler("Anna", Verbosity::Pins, None)]);
    f.ball("0000001001"); // 7-10
    f.button("repeat");
    let played = f.played(2);
    assert_eq!(names(&played[0]), ["ru:n7", "ru:n10"], "no \"split\"");
    assert_eq!(played[1], played[0], "the repeat button says it again");
}

#[test]
fn in_competition_the_score_button_is_refused_and_nothing_is_said() {
    let mut f = Fixture::new(vec![bowler("Anna", Verbosity::Pins, None)]);
    f.ball("0000000000"); // strike
    let fx = f.button("score");
    assert_eq!(
        fx,
        [Effect::Refused(Refusal::ScoreNotSaid("Anna".into()))],
        "nothing said, and the judges see why"
    );
    assert_eq!(names(&f.played(1)[0]), ["ru:strike"]);
    nothing_more(&f.played, 1, "the score was not read");
}

#[test]
fn a_training_lane_says_split_and_reads_the_score() {
    let rules = Rules {
        speaker_extras: true,
        ..Rules::default()
    };
    let mut f = Fixture::under(rules, vec![bowler("Anna", Verbosity::Pins, None)]);
    f.ball("0000001001"); // 7-10
    f.ball("0000001000"); // the 10 falls
    f.button("score");
    let played = f.played(3);
    assert_eq!(names(&played[0]), ["ru:n7", "ru:n10", "ru:split"]);
    assert_eq!(names(&played[1]), ["ru:n7", "ru:left_side"]);
    assert_eq!(
        names(&played[2]),
        ["ru:frame", "ru:n2", "ru:n9"],
        "frame 2, 9 pins"
    );
}

#[test]
fn a_bowler_hears_their_own_language_verbosity_and_extras() {
    let mut f = Fixture::new(vec![
        with_extras(bowler("Anna", Verbosity::Pins, Some(Language::En)), true),
        bowler("Boris", Verbosity::Short, None),
        bowler("Vera", Verbosity::Off, None),
    ]);
    f.ball("0000000000"); // Anna: strike
    f.ball("0000000011"); // Boris: 9 and 10 stand, a split
    f.ball("0000000000"); // Boris: spare
    f.ball("0000000000"); // Vera: strike, said to nobody
    f.button("score"); // Anna is up, and has the extras on
    let score = f.lane.last_callout().map(|c| c.said).unwrap();
    let anna = phrase::callout(&score, Language::En, Verbosity::Pins);
    assert_eq!(
        anna,
        ["frame", phrase::PAUSE, "n2", phrase::PAUSE, "n0"],
        "frame 2, her strike not counted yet"
    );
    f.ball("0000001001"); // Anna: 7-10, a split
    f.ball("0000000000"); // Anna: spare
    f.ball("0000001001"); // Boris: 7-10, a split
    let played = f.played(7);
    let said: Vec<Vec<String>> = played.iter().map(|p| names(p)).collect();
    assert_eq!(
        said,
        [
            vec!["en:strike"],
            vec!["ru:n2f", "ru:standing_few"],
            vec!["ru:spare"],
            vec!["en:frame", "en:n2", "en:n0"],
            vec!["en:n7", "en:n10", "en:split"],
            vec!["en:spare"],
            vec!["ru:n2f", "ru:standing_few"],
        ]
    );
    nothing_more(&f.played, 7, "Vera's strike was not said");
}

/// Two bowlers, two call styles, the same leave: one hears every
/// standing pin, the other only the pin hidden behind another (the 8
/// behind the 2), and the count when none is hidden.
#[test]
fn two_call_styles_call_the_same_leave_differently() {
    let mut f = Fixture::new(vec![
        bowler("Anna", Verbosity::Pins, None),
        bowler("Boris", Verbosity::Hidden, None),
    ]);
    f.ball("0100000101"); // Anna: 2, 8 and 10 stand
    f.ball("0000000000"); // Anna: spare
    f.ball("0100000101"); // Boris: 2, 8 and 10 stand
    f.ball("0000000000"); // Boris: spare
    f.ball("0000001001"); // Anna: 7-10
    f.ball("0000000000"); // Anna: spare
    f.ball("0000001001"); // Boris: 7-10, nothing hidden
    let played = f.played(7);
    let said: Vec<Vec<String>> = played.iter().map(|p| names(p)).collect();
    assert_eq!(
        said,
        [
            vec!["ru:n2", "ru:n8", "ru:n10"],
            vec!["ru:spare"],
            vec!["ru:n8"],
            vec!["ru:spare"],
            vec!["ru:n7", "ru:n10"],
            vec!["ru:spare"],
            vec!["ru:n2f", "ru:standing_few"],
        ]
    );
}

#[test]
fn every_callout_the_core_can_make_has_its_clips_in_both_packs() {
    for language in [Language::Ru, Language::En] {
        let pack = VoicePack::builtin(language);
        assert!(pack.missing().is_empty(), "{:?}", pack.missing());
        for clip in phrase::CLIPS {
            assert!(pack.get(clip).is_some(), "{clip}");
        }
    }
}

#[test]
fn the_assistant_hears_of_a_pinsetter_fault_and_nothing_else_of_conduct() {
    let mut f = Fixture::new(vec![bowler("Anna", Verbosity::Pins, None)]);
    f.serial(Body::Fault("JAM".into()));
    f.panel(Action::Penalty {
        bowler: "Anna".into(),
        reason: "conduct".into(),
    });
    f.ball("0000000001");
    let played = f.played(2);
    assert_eq!(names(&played[0]), ["ru:pinsetter_fault"]);
    assert_eq!(
        names(&played[1]),
        ["ru:n10", "ru:right_side"],
        "the penalty is not spoken"
    );
}

#[test]
fn a_journal_that_cannot_be_written_is_said_aloud_in_the_lanes_language() {
    for language in [Language::Ru, Language::En] {
        let played = Arc::new(Mutex::new(Vec::new()));
        let config = SpeakerConfig {
            language,
            ..SpeakerConfig::default()
        };
        let mut voice = Voice::with_output(&config, Box::new(Rendered(played.clone())));
        voice.journal_failed();
        wait_for(&played, 1);
        let played = played.lock().unwrap();
        let said = &played[0];
        let lang = language.as_str();
        assert_eq!(names(&said.clips), [format!("{lang}:journal_failed")]);
        let seconds = said.sound.len() as f64 / f64::from(said.rate);
        let sum: f64 = said.sound.iter().map(|&s| f64::from(s).powi(2)).sum();
        let rms = (sum / said.sound.len() as f64).sqrt();
        println!("{lang}: {seconds:.2} s, RMS {rms:.0}");
        // A whole sentence, not a click, and loud enough to be heard.
        assert!(seconds > 1.0, "{lang}: {seconds:.2} s");
        assert!(rms > 1000.0, "{lang}: (nearly) silent, RMS {rms:.0}");
    }
}

#[test]
fn the_journal_failure_is_said_in_the_lanes_language_not_the_bowlers() {
    let mut f = Fixture::new(vec![bowler("Anna", Verbosity::Pins, Some(Language::En))]);
    f.voice.journal_failed();
    assert_eq!(names(&f.played(1)[0]), ["ru:journal_failed"]);
}

/// The running lane's path: a config without `[speaker] extras` (the
/// competition default) goes into the journal's header; the speaker says no
/// "split" to a bowler on the lane's setting and says it to a bowler whose
/// lineup entry has `"extras": true`; the score button is refused for the
/// one and read for the other; a replay of the journal gives the same
/// words.
#[test]
fn the_daemon_journals_the_setting_and_says_what_it_allows() {
    use lanecall::config::Config;
    use lanecall::lane_thread::{LaneRunner, RunnerSettings};
    use lanecall::ports::Input;
    use lanecall::sensors::gpio::NullOutputs;

    let dir = crate::support::Scratch::new("voice-lane");
    let text = format!(
        "lane = 4\nstate_dir = {dir:?}\n[pinsetter]\nport = \"simulated\"\n[gpio]\nbackend = \"none\"\n\
         [rules]\nmin_cycle_ms = 0\n[web]\njudge_pin_hash = \"$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"\n"
    );
    let config = Config::parse(&text, &dir.join("lanecall.toml")).unwrap_or_else(|e| panic!("{e}"));
    let played = Arc::new(Mutex::new(Vec::new()));
    let voice = Voice::with_output(&config.speaker, Box::new(Recorder(played.clone())));
    let settings = RunnerSettings {
        state_dir: config.state_dir.clone(),
        lane: config.lane,
        rules: config.rules.clone(),
        speed: 1.0,
        simulated: false,
        language: config.speaker.language,
    };
    let (core, _snapshot) = LaneRunner::start(settings, Box::new(NullOutputs), Box::new(voice))
        .expect("the lane starts");
    let journal = core.journal_path().to_owned();
    let (tx, rx) = lanecall::ports::inputs::channel(lanecall::ports::inputs::CAPACITY);
    let lane = std::thread::spawn(move || core.run(rx));

    let send = |input| tx.send_blocking(input).expect("the lane takes it");
    let action = |action| Input::Action {
        panel: Panel::new(Some("Judge Orlova".into()), action),
        reply: None,
    };
    let mut seq = 0u8;
    let mut serial = |body| {
        let line = format_line(&Message { seq, body });
        seq += 1;
        Input::now(Sensor::Serial { line })
    };
    send(action(Action::lineup(vec![
        bowler("Anna", Verbosity::Pins, None),
        with_extras(bowler("Boris", Verbosity::Pins, None), true),
    ])));
    send(action(Action::StartBlock { games: 1 }));
    let split = PinSet::from_mask("0000001001").unwrap();
    for _ in 0..2 {
        // Each bowler leaves 7-10 and knocks both down: a spare.
        send(serial(Body::Ready(PinSet::FULL)));
        send(serial(Body::Pins(split)));
        send(serial(Body::Ready(split)));
        send(serial(Body::Pins(PinSet::EMPTY)));
        // The one up next (Boris, then Anna) presses the score button.
        send(Input::now(Sensor::Button {
            name: "score".into(),
        }));
    }
    send(Input::Shutdown);
    let replay = lane.join().expect("the lane's thread");

    let said: Vec<Vec<String>> = nothing_more(&played, 5, "five callouts")
        .iter()
        .map(|p| names(p))
        .collect();
    assert_eq!(
        said,
        [
            vec!["ru:n7", "ru:n10"],
            vec!["ru:spare"],
            vec!["ru:frame", "ru:n1", "ru:n0"], // Boris: frame 1, 0
            vec!["ru:n7", "ru:n10", "ru:split"],
            vec!["ru:spare"],
        ]
    );
    let errors: Vec<String> = replay.errors().iter().map(|e| e.message.clone()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("not read aloud to Anna"), "{errors:?}");

    let text = std::fs::read_to_string(&journal).unwrap();
    let header = text.lines().next().unwrap();
    assert!(header.contains("\"speaker_extras\":false"), "{header}");
    assert!(text.contains("\"extras\":true"), "Boris's lineup entry");
    let again = lanecall::replay::Replay::from_reader(text.as_bytes()).unwrap();
    let words = |r: &lanecall::replay::Replay| -> Vec<Vec<String>> {
        r.callouts().iter().map(|c| c.words().tokens()).collect()
    };
    assert_eq!(words(&again), words(&replay));
    assert_eq!(words(&again)[3], ["7", "10", "split"]);
}
