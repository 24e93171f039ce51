//! `[speaker] device`: the sound cards that can play, a test callout
//! played on the one "auto" takes (or the one the config names), and
//! another tried until the person at the terminal hears it. Only the test
//! callout opens a card.

use std::io::BufRead;
use std::path::Path;

use super::prompt::Prompt;
use crate::config::Config;
use crate::speaker::cards::{self, Card};
use crate::speaker::player::{AudioOut, RodioOut};

/// The sound cards that can play, as the kernel lists them; none when it
/// lists none (no sound card, no ALSA).
pub(super) fn sound_cards() -> Vec<Card> {
    let listed = cards::read_proc()
        .map(|text| cards::parse(&text))
        .unwrap_or_default();
    // A webcam's microphone is a card too, with nothing to play on.
    listed
        .into_iter()
        .filter(|c| Path::new(&format!("/proc/asound/card{}/pcm0p", c.index)).exists())
        .collect()
}

/// `[speaker] device`: the cards listed, a test callout played on the
/// one "auto" takes (or the one the config names), and another tried
/// until the person hears it. `play` plays the test callout on an ALSA
/// device. Returns the value to write, `None` to leave `configured` (the
/// file's value, `None` when it has none) as it is. Not asked of a script,
/// which nobody hears.
pub(super) fn ask_speaker<R: BufRead>(
    prompt: &mut Prompt<R>,
    configured: Option<&str>,
    found: &[Card],
    play: &mut dyn FnMut(&str) -> Result<(), String>,
) -> Result<Option<String>, String> {
    let was = configured.unwrap_or("auto");
    if found.is_empty() {
        println!(
            "No sound card found: [speaker] device stays \"{was}\" (the lane speaks once one is \
             plugged in)."
        );
        return Ok(None);
    }
    let auto = cards::choose(found);
    println!("Sound cards:");
    for (i, c) in found.iter().enumerate() {
        let what = if c.long_name.is_empty() {
            &c.name
        } else {
            &c.long_name
        };
        let mark = if Some(c) == auto {
            "  (\"auto\" takes it)"
        } else {
            ""
        };
        println!("  {}) {}  {what}{mark}", i + 1, c.pcm());
    }
    let audible: Vec<&Card> = found.iter().filter(|c| c.audible()).collect();
    if audible.is_empty() {
        println!(
            "None of them has a speaker (a loopback or dummy card is heard by no one): \
             [speaker] device stays \"{was}\"."
        );
        return Ok(None);
    }
    if !prompt.terminal {
        println!(
            "[speaker] device stays \"{was}\" (at a terminal, setup plays a test callout and \
             asks whether it was heard)."
        );
        return Ok(None);
    }
    // The card the config names, else the one "auto" takes; accepting it
    // leaves the config's value (or writes "auto" over `default`).
    let named = configured
        .and_then(cards::card_of)
        .and_then(|id| found.iter().position(|c| c.id == id));
    let (mut index, keep) = match named {
        Some(i) => (i, was.to_owned()),
        None => {
            let auto = auto.and_then(|a| found.iter().position(|c| c == a));
            (auto.unwrap_or(0), "auto".to_owned())
        }
    };
    let preselected = index;
    let words = crate::speaker::TEST_WORDS.join(" ");
    loop {
        let pcm = found[index].pcm();
        println!("Playing \"{words}\" on {pcm} ...");
        let heard = match play(&pcm) {
            Ok(()) => loop {
                let answer = prompt.ask(&format!(
                    "Did you hear \"{words}\" from the lane's speaker? [Y/n]: "
                ))?;
                match answer.to_ascii_lowercase().as_str() {
                    "" | "y" | "yes" => break true,
                    "n" | "no" => break false,
                    _ => println!("speaker.device: answer y or n"),
                }
            },
            Err(e) => {
                println!("speaker.device: {pcm}: {e}");
                false
            }
        };
        if heard {
            let value = if index == preselected { keep } else { pcm };
            return Ok((value != was).then_some(value));
        }
        index = loop {
            let answer = prompt.ask(&format!(
                "Another card (a number above), or Enter to leave [speaker] device = \"{was}\": "
            ))?;
            if answer.is_empty() {
                return Ok(None);
            }
            match answer.parse::<usize>() {
                Ok(n) if (1..=found.len()).contains(&n) => break n - 1,
                _ => println!(
                    "speaker.device: {answer:?}: a number from 1 to {}",
                    found.len()
                ),
            }
        };
    }
}

/// Plays the test callout on `device` as the lane would: its voice, its
/// language and volume from `text` (the config as it will be written).
pub(super) fn play_test_callout(text: &str, path: &Path, device: &str) -> Result<(), String> {
    let speaker = Config::parse(text, path)
        .map(|c| c.speaker)
        .unwrap_or_default();
    let clips = crate::speaker::test_callout(&speaker);
    let mut out = RodioOut::new(Some(device.to_owned()));
    let played = out.open().and_then(|_| out.play(&clips, speaker.volume));
    out.close();
    // A card the running service holds will not open a second time.
    played.map_err(|e| {
        format!("{e} (if lanecall is running it may hold the card: sudo systemctl stop lanecall)")
    })
}

#[cfg(test)]
mod tests {
    use std::io;

    use super::*;

    /// A Pi 4 with a USB DAC: the jack is card 0, the DAC card 1.
    fn pi4_with_a_dac() -> Vec<Card> {
        cards::parse(concat!(
            " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n",
            "                      bcm2835 Headphones\n",
            " 1 [Device         ]: USB-Audio - USB Audio Device\n",
            "                      C-Media Electronics Inc. USB Audio Device at usb-0000:01:00.0-1.2, full speed\n",
        ))
    }

    /// `ask_speaker` at a terminal with `answers`; the devices played on.
    fn speaker_dialogue(
        answers: &str,
        configured: Option<&str>,
        found: &[Card],
        silent: &[&str],
    ) -> (Result<Option<String>, String>, Vec<String>) {
        let mut played = Vec::new();
        let mut play = |device: &str| {
            played.push(device.to_owned());
            match silent.contains(&device) {
                true => Err("no such card".to_owned()),
                false => Ok(()),
            }
        };
        let mut prompt = Prompt::new(io::Cursor::new(answers.to_owned()), true);
        let got = ask_speaker(&mut prompt, configured, found, &mut play);
        (got, played)
    }

    #[test]
    fn the_card_auto_takes_is_played_first_and_accepting_it_leaves_auto() {
        let found = pi4_with_a_dac();
        let (got, played) = speaker_dialogue("\n", Some("auto"), &found, &[]);
        assert_eq!(got, Ok(None));
        assert_eq!(played, ["plughw:CARD=Device,DEV=0"]);
        // An old config's "default" (card 0, the jack) becomes "auto".
        let (got, _) = speaker_dialogue("y\n", Some("default"), &found, &[]);
        assert_eq!(got, Ok(Some("auto".to_owned())));
    }

    #[test]
    fn not_heard_another_card_is_played_and_written_once_heard() {
        let found = pi4_with_a_dac();
        let (got, played) = speaker_dialogue("n\n1\ny\n", None, &found, &[]);
        assert_eq!(got, Ok(Some("plughw:CARD=Headphones,DEV=0".to_owned())));
        assert_eq!(
            played,
            ["plughw:CARD=Device,DEV=0", "plughw:CARD=Headphones,DEV=0"]
        );
        // A card that does not play is said so and another is asked for;
        // a wrong number is asked again; Enter leaves the config as it is.
        let (got, played) =
            speaker_dialogue("7\n2\nn\n\n", None, &found, &["plughw:CARD=Device,DEV=0"]);
        assert_eq!(got, Ok(None));
        assert_eq!(played.len(), 2);
    }

    #[test]
    fn the_card_the_config_names_is_played_first_and_kept() {
        let found = pi4_with_a_dac();
        let named = "plughw:CARD=Headphones,DEV=0";
        let (got, played) = speaker_dialogue("\n", Some(named), &found, &[]);
        assert_eq!(got, Ok(None));
        assert_eq!(played, [named]);
    }

    #[test]
    fn without_a_card_or_a_person_nothing_is_played_or_asked() {
        let mut play = |_: &str| -> Result<(), String> { panic!("played") };
        // No input at all: a question would fail for want of an answer.
        let mut prompt = Prompt::new(io::Cursor::new(String::new()), true);
        assert_eq!(ask_speaker(&mut prompt, None, &[], &mut play), Ok(None));
        let loopback = cards::parse(" 0 [Loopback       ]: Loopback - Loopback\n");
        assert_eq!(
            ask_speaker(&mut prompt, None, &loopback, &mut play),
            Ok(None)
        );
        let mut script = Prompt::new(io::Cursor::new(String::new()), false);
        assert_eq!(
            ask_speaker(&mut script, None, &pi4_with_a_dac(), &mut play),
            Ok(None)
        );
    }
}
