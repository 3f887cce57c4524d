//! Writes `.model` files for checking `ModelProto::write` against sentencepiece:
//! `cargo run --release --example spm_roundtrip -- IN.model OUT.model` re-encodes a file (and
//! checks `parse(write(parse(f))) == parse(f)`); `-- --build OUT.model` writes a small Unigram
//! model built in code (default specs, pieces a..z and their pairs).
use tokenmill_core::spm::{ModelProto, NormalizerSpec, Piece, PieceType, TrainerSpec};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (proto, out) = if args[0] == "--build" {
        let mut pieces = vec![
            Piece { piece: "<unk>".into(), score: 0.0, kind: PieceType::Unknown },
            Piece { piece: "<s>".into(), score: 0.0, kind: PieceType::Control },
            Piece { piece: "</s>".into(), score: 0.0, kind: PieceType::Control },
            Piece { piece: "\u{2581}".into(), score: -2.0, kind: PieceType::Normal },
        ];
        let letters: Vec<char> = ('a'..='z').collect();
        for (i, a) in letters.iter().enumerate() {
            pieces.push(Piece { piece: a.to_string(), score: -3.0 - i as f32 * 0.01, kind: PieceType::Normal });
            pieces.push(Piece {
                piece: format!("\u{2581}{a}"),
                score: -3.5 - i as f32 * 0.01,
                kind: PieceType::Normal,
            });
        }
        for (i, a) in letters.iter().enumerate() {
            for (j, b) in letters.iter().enumerate() {
                let score = -6.0 - (i * 26 + j) as f32 * 0.001;
                pieces.push(Piece { piece: format!("{a}{b}"), score, kind: PieceType::Normal });
            }
        }
        let trainer_spec = TrainerSpec { vocab_size: pieces.len() as i32, ..TrainerSpec::default() };
        let proto = ModelProto {
            pieces,
            trainer_spec,
            normalizer_spec: NormalizerSpec::default(),
            denormalizer_spec: None,
            extra: Vec::new(),
        };
        (proto, &args[1])
    } else {
        let proto = ModelProto::parse(&std::fs::read(&args[0]).expect("read")).expect("parse");
        (proto, &args[1])
    };
    let bytes = proto.write();
    assert_eq!(ModelProto::parse(&bytes).expect("reparse"), proto, "parse(write(m)) != m");
    std::fs::write(out, &bytes).expect("write");
    eprintln!("{} pieces, {} bytes -> {out}", proto.pieces.len(), bytes.len());
}
