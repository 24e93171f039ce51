//! The sound cards the kernel lists in `/proc/asound/cards`, and which of
//! them `[speaker] device = "auto"` speaks through.
//!
//! A card is named by its id (`plughw:CARD=Device,DEV=0`), never by its
//! number: numbers move when a DAC is plugged in or a kernel changes, ids
//! do not. On a Pi, ALSA's `default` is card 0, which is the headphone jack
//! (Pi 4) or HDMI (Pi 5) even with a USB DAC or an I2S HAT beside it; the
//! card a technician fitted for the lane's speaker is preferred here.
//!
//! Everything here is pure except [`read_proc`]: the text is parsed and
//! ranked, and the caller reads it (through a reader tests can swap).

use std::io;

/// Where the kernel lists the sound cards.
pub const PROC_CARDS: &str = "/proc/asound/cards";

/// Reads the list of sound cards; swapped in tests to unplug a card.
pub type ReadCards = Box<dyn Fn() -> io::Result<String> + Send>;

/// The kernel's list, as it is now.
pub fn read_proc() -> io::Result<String> {
    std::fs::read_to_string(PROC_CARDS)
}

/// One card of `/proc/asound/cards`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    /// The card's number now (`hw:0`); it changes, the id does not.
    pub index: u32,
    /// The id in brackets (`Device`, `Headphones`, `vc4hdmi0`).
    pub id: String,
    /// The driver (`USB-Audio`, `bcm2835_headpho`, `vc4-hdmi`).
    pub driver: String,
    /// The short name (`USB Audio Device`, `bcm2835 Headphones`).
    pub name: String,
    /// The long name, on the second line (maker, USB port, speed).
    pub long_name: String,
}

/// What a card is, in the order "auto" prefers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A USB DAC or speaker: plugged in for this very purpose.
    Usb,
    /// Any other real card: on a Pi, an I2S HAT (HiFiBerry, IQaudio), which
    /// is fitted on purpose too; on a PC, its own card.
    Hat,
    /// The Pi's 3.5 mm jack (`bcm2835`): noisy, but a speaker can be on it.
    Headphones,
    /// HDMI: sound only if the screen has speakers, rarely beside a lane.
    Hdmi,
    /// A loopback card: nobody hears it here, but another program may
    /// record it (and pass it on, or a test checks what was played).
    Loopback,
    /// A dummy card: what it is given goes nowhere.
    Dummy,
}

impl Card {
    /// The ALSA name the card is opened by: through `plug`, so that the
    /// voice's rate and channels are converted to whatever the card takes.
    pub fn pcm(&self) -> String {
        format!("plughw:CARD={},DEV=0", self.id)
    }

    /// The card as the panel and the log name it:
    /// `USB Audio Device (plughw:CARD=Device,DEV=0)`.
    pub fn label(&self) -> String {
        format!("{} ({})", self.name, self.pcm())
    }

    pub fn kind(&self) -> Kind {
        let driver = self.driver.to_ascii_lowercase();
        let name = self.name.to_ascii_lowercase();
        let id = self.id.to_ascii_lowercase();
        if driver == "usb-audio" {
            Kind::Usb
        } else if driver.contains("hdmi") || name.contains("hdmi") || id.starts_with("vc4hdmi") {
            Kind::Hdmi
        } else if id == "headphones" || driver.starts_with("bcm2835") {
            // `bcm2835 ALSA` of older firmware is the jack (and HDMI) too.
            Kind::Headphones
        } else if ["loopback", "aloop"].contains(&driver.as_str()) || id == "loopback" {
            Kind::Loopback
        } else if driver == "dummy" || id == "dummy" {
            Kind::Dummy
        } else {
            Kind::Hat
        }
    }

    /// Whether a person could hear it: not a loopback or dummy card.
    pub fn audible(&self) -> bool {
        !matches!(self.kind(), Kind::Loopback | Kind::Dummy)
    }
}

/// Parses `/proc/asound/cards`. Each card is two lines, as the kernel
/// prints them (`%2i [%-15s]: %s - %s`, then the long name indented):
///
/// ```text
///  1 [Device         ]: USB-Audio - USB Audio Device
///                       C-Media Electronics Inc. USB Audio Device at usb-…, full speed
/// ```
///
/// A line that is neither is skipped (`--- no soundcards ---`).
pub fn parse(text: &str) -> Vec<Card> {
    let mut cards: Vec<Card> = Vec::new();
    let mut long_name_due = false;
    for line in text.lines() {
        if let Some(card) = parse_head(line) {
            cards.push(card);
            long_name_due = true;
        } else if long_name_due
            && line.starts_with(' ')
            && let Some(card) = cards.last_mut()
        {
            card.long_name = line.trim().to_owned();
            long_name_due = false;
        } else {
            long_name_due = false;
        }
    }
    cards
}

/// ` 1 [Device         ]: USB-Audio - USB Audio Device`
fn parse_head(line: &str) -> Option<Card> {
    let line = line.trim_start();
    let (index, rest) = line.split_once(' ')?;
    let index = index.parse().ok()?;
    let rest = rest.trim_start().strip_prefix('[')?;
    let (id, rest) = rest.split_once("]:")?;
    let id = id.trim();
    if id.is_empty() {
        return None;
    }
    let rest = rest.trim();
    let (driver, name) = rest.split_once(" - ").unwrap_or((rest, rest));
    Some(Card {
        index,
        id: id.to_owned(),
        driver: driver.trim().to_owned(),
        name: name.trim().to_owned(),
        long_name: String::new(),
    })
}

/// The cards in the order "auto" tries them: by [`Kind`], then by number.
/// The first is the one it chooses; the next ones are tried when it will
/// not open for playback (a USB webcam is `USB-Audio` too, with only a
/// microphone).
pub fn ranked(cards: &[Card]) -> Vec<&Card> {
    let mut ranked: Vec<&Card> = cards.iter().collect();
    ranked.sort_by_key(|c| (c.kind(), c.index));
    ranked
}

/// The card "auto" chooses, if there is one.
pub fn choose(cards: &[Card]) -> Option<&Card> {
    ranked(cards).into_iter().next()
}

/// The card id an ALSA name opens, when it names one by id
/// (`plughw:CARD=Device,DEV=0`, `hw:CARD=Device`, `default:CARD=Device`,
/// `hw:Device`); `None` for a name without a card (`default`, `dmix`) or
/// with a number, which may be another card after a replug.
pub fn card_of(device: &str) -> Option<&str> {
    let (_, args) = device.split_once(':')?;
    let first = args.split(',').next()?.trim();
    let id = first.strip_prefix("CARD=").unwrap_or(first).trim();
    let id = id.trim_matches('"');
    (!id.is_empty() && !id.bytes().all(|b| b.is_ascii_digit())).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Pi 4 (Raspberry Pi OS, KMS) with a C-Media USB DAC plugged in:
    /// the jack is card 0, ALSA's `default`.
    const PI4_USB_DAC: &str = concat!(
        " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n",
        "                      bcm2835 Headphones\n",
        " 1 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0\n",
        "                      vc4-hdmi-0\n",
        " 2 [vc4hdmi1       ]: vc4-hdmi - vc4-hdmi-1\n",
        "                      vc4-hdmi-1\n",
        " 3 [Device         ]: USB-Audio - USB Audio Device\n",
        "                      C-Media Electronics Inc. USB Audio Device at usb-0000:01:00.0-1.2, full speed\n",
    );

    /// A Pi 5 with nothing plugged in: HDMI only (it has no jack).
    const PI5_HDMI: &str = concat!(
        " 0 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0\n",
        "                      vc4-hdmi-0\n",
        " 1 [vc4hdmi1       ]: vc4-hdmi - vc4-hdmi-1\n",
        "                      vc4-hdmi-1\n",
    );

    /// A Pi 5 with a HiFiBerry DAC+ (the id fills its 15 characters).
    const PI5_HIFIBERRY: &str = concat!(
        " 0 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0\n",
        "                      vc4-hdmi-0\n",
        " 1 [vc4hdmi1       ]: vc4-hdmi - vc4-hdmi-1\n",
        "                      vc4-hdmi-1\n",
        " 2 [sndrpihifiberry]: HifiberryDacp - snd_rpi_hifiberry_dacplus\n",
        "                      snd_rpi_hifiberry_dacplus\n",
    );

    /// An older Pi (firmware audio): a USB DAC as card 0, the jack as
    /// `bcm2835 ALSA`; and a webcam's microphone, `USB-Audio` as well.
    const OLD_PI_WEBCAM: &str = concat!(
        " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n",
        "                      bcm2835 Headphones\n",
        " 1 [Webcam         ]: USB-Audio - Dynex 1.3MP Webcam\n",
        "                      Dynex Dynex 1.3MP Webcam at usb-3f980000.usb-1.2.1, high speed\n",
        " 2 [CODEC          ]: USB-Audio - USB Audio CODEC\n",
        "                      Burr-Brown from TI USB Audio CODEC at usb-3f980000.usb-1.2.2, full speed\n",
        " 3 [ALSA           ]: bcm2835 - bcm2835 ALSA\n",
        "                      bcm2835 ALSA\n",
    );

    #[test]
    fn a_pi_4s_cards_are_read_with_their_ids_and_names() {
        let cards = parse(PI4_USB_DAC);
        assert_eq!(cards.len(), 4);
        assert_eq!(
            cards[3],
            Card {
                index: 3,
                id: "Device".into(),
                driver: "USB-Audio".into(),
                name: "USB Audio Device".into(),
                long_name: "C-Media Electronics Inc. USB Audio Device at \
                            usb-0000:01:00.0-1.2, full speed"
                    .into(),
            }
        );
        assert_eq!(cards[0].id, "Headphones");
        assert_eq!(cards[0].driver, "bcm2835_headpho");
        assert_eq!(cards[1].long_name, "vc4-hdmi-0");
        let kinds: Vec<Kind> = cards.iter().map(Card::kind).collect();
        assert_eq!(kinds, [Kind::Headphones, Kind::Hdmi, Kind::Hdmi, Kind::Usb]);
    }

    #[test]
    fn auto_chooses_a_usb_dac_over_the_jack_that_is_card_0() {
        let cards = parse(PI4_USB_DAC);
        let chosen = choose(&cards).unwrap();
        assert_eq!(chosen.pcm(), "plughw:CARD=Device,DEV=0");
        assert_eq!(
            chosen.label(),
            "USB Audio Device (plughw:CARD=Device,DEV=0)"
        );
        // Unplugged: the jack, not HDMI.
        let without: Vec<Card> = cards.into_iter().filter(|c| c.id != "Device").collect();
        assert_eq!(choose(&without).unwrap().id, "Headphones");
    }

    #[test]
    fn auto_chooses_an_i2s_hat_over_hdmi_and_hdmi_when_it_is_all_there_is() {
        let hat = parse(PI5_HIFIBERRY);
        assert_eq!(hat[2].id, "sndrpihifiberry");
        assert_eq!(hat[2].kind(), Kind::Hat);
        assert_eq!(
            choose(&hat).unwrap().label(),
            "snd_rpi_hifiberry_dacplus (plughw:CARD=sndrpihifiberry,DEV=0)"
        );
        let hdmi = parse(PI5_HDMI);
        assert_eq!(choose(&hdmi).unwrap().id, "vc4hdmi0");
    }

    #[test]
    fn every_usb_card_is_tried_before_the_jack_a_webcam_included() {
        let cards = parse(OLD_PI_WEBCAM);
        let order: Vec<&str> = ranked(&cards).iter().map(|c| c.id.as_str()).collect();
        assert_eq!(order, ["Webcam", "CODEC", "Headphones", "ALSA"]);
        assert_eq!(cards[3].kind(), Kind::Headphones);
    }

    #[test]
    fn no_card_and_a_loopback_card() {
        assert_eq!(parse("--- no soundcards ---\n"), []);
        assert_eq!(parse(""), []);
        assert_eq!(choose(&[]), None);
        let vm = parse(concat!(
            " 0 [Loopback       ]: Loopback - Loopback\n",
            "                      Loopback 1\n",
        ));
        assert_eq!(vm[0].kind(), Kind::Loopback);
        assert!(!vm[0].audible());
        // Chosen when alone (a test machine), never before a real card.
        assert_eq!(choose(&vm).unwrap().id, "Loopback");
        let mut both = parse(PI5_HDMI);
        both.extend(vm.clone());
        assert_eq!(choose(&both).unwrap().id, "vc4hdmi0");
        // A dummy card (snd-dummy) gives its sound to nobody: a loopback
        // card, which a program may record, before it, whatever its number.
        let mut dummy_first = parse(concat!(
            " 0 [Dummy          ]: Dummy - Dummy
",
            "                      Dummy 1
",
        ));
        assert_eq!(dummy_first[0].kind(), Kind::Dummy);
        assert!(!dummy_first[0].audible());
        dummy_first.extend(vm.into_iter().map(|c| Card { index: 1, ..c }));
        assert_eq!(choose(&dummy_first).unwrap().id, "Loopback");
    }

    #[test]
    fn a_device_name_tells_its_card_when_it_names_one_by_id() {
        assert_eq!(card_of("plughw:CARD=Device,DEV=0"), Some("Device"));
        assert_eq!(card_of("hw:CARD=Headphones"), Some("Headphones"));
        assert_eq!(card_of("default:CARD=vc4hdmi0"), Some("vc4hdmi0"));
        assert_eq!(card_of("hw:Device,0"), Some("Device"));
        assert_eq!(card_of("hw:1,0"), None);
        assert_eq!(card_of("default"), None);
        assert_eq!(card_of("plughw:"), None);
    }
}
