//! How an agent hands its command's output back through its Pod's log,
//! which merges stdout and stderr and may be read more than once: one
//! frame per line, `<seq> <stream> <payload>`, numbered from 1, so a reader
//! that lost its log stream (the API server beside a member being
//! defragmented stalls) reads the log again and skips what it has. Pure.
//!
//! - `<seq> o <base64>`: bytes the command wrote to stdout;
//! - `<seq> e <base64>`: bytes it wrote to stderr;
//! - `<seq> x <code>`: it ended with exit code `code` (the last frame).
//!
//! Anything else on a line (the kubelet's own words, a runtime's) is not a
//! frame and is passed over.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// One frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
    Exit(u8),
}

/// The line (without its newline) that carries `frame` as number `seq`.
pub fn encode(seq: u64, frame: &Frame) -> String {
    match frame {
        Frame::Stdout(bytes) => format!("{seq} o {}", STANDARD.encode(bytes)),
        Frame::Stderr(bytes) => format!("{seq} e {}", STANDARD.encode(bytes)),
        Frame::Exit(code) => format!("{seq} x {code}"),
    }
}

/// The frame on `line`, with its number; `None` when the line is not one.
pub fn decode(line: &str) -> Option<(u64, Frame)> {
    let mut parts = line.trim_end_matches(['\r', '\n']).splitn(3, ' ');
    let seq: u64 = parts.next()?.parse().ok()?;
    let stream = parts.next()?;
    let payload = parts.next().unwrap_or("");
    let frame = match stream {
        "o" => Frame::Stdout(STANDARD.decode(payload).ok()?),
        "e" => Frame::Stderr(STANDARD.decode(payload).ok()?),
        "x" => Frame::Exit(payload.parse().ok()?),
        _ => return None,
    };
    Some((seq, frame))
}

/// What a reader keeps between readings of the log: the last frame it
/// took, and the exit code once seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reader {
    pub last: u64,
    pub exit: Option<u8>,
}

impl Reader {
    /// The frame on `line` when it is one this reader has not taken yet
    /// (the next one, or later ones when lines were lost), recording it.
    pub fn take(&mut self, line: &str) -> Option<Frame> {
        let (seq, frame) = decode(line)?;
        if seq <= self.last || self.exit.is_some() {
            return None;
        }
        self.last = seq;
        if let Frame::Exit(code) = frame {
            self.exit = Some(code);
        }
        Some(frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_carry_any_bytes_and_come_back_as_written() {
        for frame in [
            Frame::Stdout(b"MEMBER  STATUS\n".to_vec()),
            Frame::Stderr(b"note: \xff\x00 not utf-8\n".to_vec()),
            Frame::Stdout(Vec::new()),
            Frame::Exit(0),
            Frame::Exit(143),
        ] {
            let line = encode(7, &frame);
            assert!(!line.contains('\n'), "{line}");
            assert_eq!(decode(&line), Some((7, frame)));
        }
    }

    #[test]
    fn lines_that_are_not_frames_are_passed_over() {
        for line in [
            "",
            "hello",
            "x o aGk=",
            "3 q aGk=",
            "3 o not base64!",
            "3 x",
            "3 x 300",
            "-1 o aGk=",
        ] {
            assert_eq!(decode(line), None, "{line:?}");
        }
        assert_eq!(
            decode("4 o aGk=\r\n"),
            Some((4, Frame::Stdout(b"hi".to_vec())))
        );
    }

    #[test]
    fn a_log_read_again_gives_each_frame_once() {
        let log: Vec<String> = [
            Frame::Stdout(b"a".to_vec()),
            Frame::Stderr(b"b".to_vec()),
            Frame::Stdout(b"c".to_vec()),
            Frame::Exit(1),
        ]
        .iter()
        .enumerate()
        .map(|(i, f)| encode(i as u64 + 1, f))
        .collect();
        let mut reader = Reader::default();
        // The stream broke after two lines; the log is read again from its
        // start.
        let mut taken: Vec<Frame> = log[..2].iter().filter_map(|l| reader.take(l)).collect();
        taken.extend(log.iter().filter_map(|l| reader.take(l)));
        assert_eq!(
            taken,
            [
                Frame::Stdout(b"a".to_vec()),
                Frame::Stderr(b"b".to_vec()),
                Frame::Stdout(b"c".to_vec()),
                Frame::Exit(1),
            ]
        );
        assert_eq!(reader.exit, Some(1));
        // Nothing after the end is taken.
        assert_eq!(reader.take(&encode(9, &Frame::Stdout(b"z".to_vec()))), None);
    }
}
