//! One journal line, arbitrary bytes: the seal check and the event parser,
//! then a whole replay of a one-header journal in format 1 and in format 2
//! (as it is, and sealed so that its checksum holds), then its JSON report.
//! Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

const HEADER: &[u8] = br#"{"journal":"lanecall","version":1,"lane":1}"#;

fn replay(journal: &[u8]) {
    // A journal with a valid header is never an error (bad lines are
    // recorded and skipped), but do not assume it: only panics count.
    if let Ok(replay) = lanecall::replay::Replay::from_reader(journal) {
        let json = serde_json::to_string(&replay.report());
        let _ = std::hint::black_box(json);
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(line) = std::str::from_utf8(data)
        && let Ok(event) = lanecall::journal::parse_event(line)
    {
        // Writing the event back must not panic either.
        let _ = std::hint::black_box(lanecall::journal::event_line(&event));
    }

    let sealed_header = lanecall::journal::Header::new(1, None, Default::default()).to_line();
    let mut bodies = vec![data.to_vec()];
    if let Ok(line) = std::str::from_utf8(data) {
        let _ = lanecall::journal::unseal(line);
        if !line.contains('\n') {
            bodies.push(lanecall::journal::seal(line, 2).into_bytes());
        }
    }
    for header in [HEADER, sealed_header.as_bytes()] {
        for body in &bodies {
            // header + "\n" + bytes: the last line has no line end, so the
            // reader treats it as torn...
            let mut journal = Vec::with_capacity(header.len() + body.len() + 2);
            journal.extend_from_slice(header);
            journal.push(b'\n');
            journal.extend_from_slice(body);
            replay(&journal);

            // ...and with a final "\n", so every line of the input is
            // applied.
            journal.push(b'\n');
            replay(&journal);
        }
    }
});
