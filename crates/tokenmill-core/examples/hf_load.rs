//! Times the stages of loading a tokenizer.json: `cargo run --release --example hf_load -- FILE`.
use std::time::Instant;

use tokenmill_core::hf::added::AddedVocabulary;
use tokenmill_core::hf::fast::Fast;
use tokenmill_core::hf::models::Model;

fn main() {
    let path = std::env::args().nth(1).expect("usage: hf_load FILE");
    let data = std::fs::read(path).expect("read");
    let t = Instant::now();
    let v: serde_json::Value = serde_json::from_slice(&data).expect("json");
    println!("parse      {:>7.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let model = Model::from_json(&v["model"], "model").expect("model");
    println!("model      {:>7.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let pre = tokenmill_core::hf::pretokenizers::PreTokenizer::from_json(&v["pre_tokenizer"], "pre_tokenizer").ok();
    let f = Fast::new(None, pre.as_ref(), &model, &AddedVocabulary::default()).expect("fast");
    println!("fast       {:>7.1} ms ({})", t.elapsed().as_secs_f64() * 1e3, f.is_some());
    let t = Instant::now();
    let all = tokenmill_core::hf::HfTokenizer::from_json_bytes(&data).expect("all");
    println!("everything {:>7.1} ms {}", t.elapsed().as_secs_f64() * 1e3, all.pretokenizer_name());
}
