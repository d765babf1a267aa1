use rayon::prelude::*;
use std::io::Read;
fn pass(files: &[std::path::PathBuf]) -> u64 {
    files
        .par_iter()
        .map_init(
            || Vec::with_capacity(1 << 20),
            |buf: &mut Vec<u8>, p| {
                let mut f = std::fs::File::open(p).unwrap();
                let mut inv = 0;
                buf.clear();
                loop {
                    let start = buf.len();
                    buf.resize(start + (1 << 20), 0);
                    let n = f.read(&mut buf[start..]).unwrap();
                    buf.truncate(start + n);
                    let cut = if n == 0 {
                        buf.len()
                    } else {
                        match memchr::memrchr(b'\n', buf) {
                            Some(i) => i + 1,
                            None => continue,
                        }
                    };
                    let mut s = 0;
                    for end in memchr::memchr_iter(b'\n', &buf[..cut]).chain(if cut == buf.len() && n == 0 {
                        Some(cut)
                    } else {
                        None
                    }) {
                        let line = &buf[s..end];
                        s = end + 1;
                        if !line.is_empty() && !pitree::catalog::lines::is_json(line) {
                            inv += 1;
                        }
                    }
                    buf.drain(..cut);
                    if n == 0 {
                        break;
                    }
                }
                inv
            },
        )
        .sum()
}
fn main() {
    let root = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let mut files = vec![];
    for d in std::fs::read_dir(root.join("sessions")).unwrap() {
        for f in std::fs::read_dir(d.unwrap().path()).unwrap() {
            files.push(f.unwrap().path());
        }
    }
    for i in 0..3 {
        let t = std::time::Instant::now();
        let inv = pass(&files);
        eprintln!("pass {i}: {:?} invalid {inv}", t.elapsed());
    }
}
