//! The heap under churn, in every engine the browser tests run in (with `--features js` the
//! package's own global allocator): strings and vectors of every size class, from empty to
//! several wasm pages, grown, shrunk, joined and freed in varied orders by tasks that interleave
//! across awaits and inside JS callbacks, with strings round-tripping through JS. Everything
//! written is checked again later: a block handed out twice, a write past a block's end or a
//! copy that lost bytes fails the test, with the seed that replays it.
#![cfg(target_arch = "wasm32")]

mod common;

use std::alloc::{alloc, dealloc, Layout};
use std::cell::RefCell;
use std::rc::Rc;

use common::pause;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// xorshift64*: a small generator whose runs a seed replays.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A length: mostly small, sometimes a few kilobytes, rarely several wasm pages.
    fn size(&mut self) -> usize {
        match self.below(100) {
            0..=39 => self.below(17),
            40..=79 => 16 + self.below(240),
            80..=97 => 256 + self.below(8_000),
            _ => 8_192 + self.below(200_000),
        }
    }
}

/// Characters of 1 to 4 bytes in UTF-8.
const CHARS: [char; 8] = ['a', 'Z', '0', '£', 'é', '€', '✓', '😀'];

/// The `n` first characters of the text of `seed`; each seed has its own, so a block that holds
/// another block's bytes is told apart.
fn text(seed: u64, n: usize) -> String {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| CHARS[rng.below(CHARS.len())]).collect()
}

/// The `n` first words of the words of `seed`.
fn words(seed: u64, n: usize) -> Vec<u64> {
    let mut rng = Rng::new(seed ^ 0xA5A5);
    (0..n).map(|_| rng.next()).collect()
}

/// FNV-1a of bytes.
fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A live allocation and what it must still hold.
enum Held {
    /// `text(seed, chars)`.
    Text {
        value: String,
        seed: u64,
        chars: usize,
    },
    /// `words(seed, len)`.
    Words { value: Vec<u64>, seed: u64 },
    /// Bytes (a join, a string back from JS) and their hash.
    Hashed { value: String, hash: u64 },
    /// A block from the allocator itself, of `layout`, filled with the byte `fill`.
    Raw {
        ptr: *mut u8,
        layout: Layout,
        fill: u8,
    },
}

impl Held {
    /// Fails unless the allocation still holds what was written, and is aligned.
    fn check(&self, context: &str) {
        match self {
            Held::Text { value, seed, chars } => {
                assert!(
                    value == &text(*seed, *chars),
                    "{context}: text {seed} changed"
                )
            }
            Held::Words { value, seed } => assert!(
                value == &words(*seed, value.len()),
                "{context}: words {seed} changed"
            ),
            Held::Hashed { value, hash: h } => {
                assert_eq!(
                    hash(value.as_bytes()),
                    *h,
                    "{context}: a joined text changed"
                )
            }
            Held::Raw { ptr, layout, fill } => {
                assert_eq!(*ptr as usize % layout.align(), 0, "{context}: misaligned");
                // SAFETY: `ptr` is a live block of `layout` that this test allocated and filled.
                let bytes = unsafe { std::slice::from_raw_parts(*ptr, layout.size()) };
                assert!(
                    bytes.iter().all(|b| b == fill),
                    "{context}: a raw block of {} bytes changed",
                    layout.size()
                );
            }
        }
    }

    /// The bytes it owns on the heap (`None` when it owns none).
    fn block(&self) -> Option<(usize, usize)> {
        let (start, len) = match self {
            Held::Text { value, .. } | Held::Hashed { value, .. } => {
                (value.as_ptr() as usize, value.capacity())
            }
            Held::Words { value, .. } => (value.as_ptr() as usize, value.capacity() * 8),
            Held::Raw { ptr, layout, .. } => (*ptr as usize, layout.size()),
        };
        (len > 0).then_some((start, start + len))
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Held::Raw { ptr, layout, .. } = self {
            // SAFETY: allocated with this layout by `Pool::step`, freed once, here.
            unsafe { dealloc(*ptr, *layout) };
        }
    }
}

/// One task's allocations and its generator.
struct Pool {
    name: String,
    rng: Rng,
    held: Vec<Held>,
    steps: usize,
}

impl Pool {
    fn new(name: &str, seed: u64) -> Self {
        Pool {
            name: format!("{name} (seed {seed})"),
            rng: Rng::new(seed),
            held: Vec::new(),
            steps: 0,
        }
    }

    /// Every allocation still holds what was written, and no two share a byte.
    fn check_all(&self) {
        let context = format!("{} after {} steps", self.name, self.steps);
        for held in &self.held {
            held.check(&context);
        }
        let mut blocks: Vec<(usize, usize)> = self.held.iter().filter_map(Held::block).collect();
        blocks.sort_unstable();
        for pair in blocks.windows(2) {
            assert!(
                pair[0].1 <= pair[1].0,
                "{context}: blocks {:#x}..{:#x} and {:#x}..{:#x} overlap",
                pair[0].0,
                pair[0].1,
                pair[1].0,
                pair[1].1
            );
        }
    }

    /// One random change to the pool.
    fn step(&mut self) {
        self.steps += 1;
        let seed = self.rng.next();
        match self.rng.below(100) {
            // A new allocation of any size class.
            0..=34 => {
                let held = match self.rng.below(3) {
                    0 => {
                        let chars = self.rng.size();
                        Held::Text {
                            value: text(seed, chars),
                            seed,
                            chars,
                        }
                    }
                    1 => Held::Words {
                        value: words(seed, self.rng.size() / 8),
                        seed,
                    },
                    _ => {
                        let align = 1 << self.rng.below(13);
                        let size = 1 + self.rng.size();
                        let layout = Layout::from_size_align(size, align).unwrap();
                        // SAFETY: the layout has a non-zero size.
                        let ptr = unsafe { alloc(layout) };
                        assert!(!ptr.is_null(), "out of memory for {size} bytes");
                        let fill = seed as u8;
                        // SAFETY: `ptr` is a fresh block of `size` bytes.
                        unsafe { ptr.write_bytes(fill, size) };
                        Held::Raw { ptr, layout, fill }
                    }
                };
                held.check(&self.name);
                self.held.push(held);
            }
            // Freed: the last, one from the middle keeping the order, or any one.
            35..=64 if !self.held.is_empty() => {
                let at = self.rng.below(self.held.len());
                match self.rng.below(3) {
                    0 => drop(self.held.pop()),
                    1 => drop(self.held.remove(at)),
                    _ => drop(self.held.swap_remove(at)),
                }
            }
            // Grown (reallocated bigger) or shrunk (reallocated smaller).
            65..=79 if !self.held.is_empty() => {
                let at = self.rng.below(self.held.len());
                let target = self.rng.size();
                match &mut self.held[at] {
                    Held::Text { value, seed, chars } => {
                        *value = if target > *chars {
                            let mut grown = std::mem::take(value);
                            grown.push_str(&text(*seed, target)[text(*seed, *chars).len()..]);
                            grown
                        } else {
                            let mut shrunk = text(*seed, target);
                            shrunk.shrink_to_fit();
                            shrunk
                        };
                        *chars = target;
                    }
                    Held::Words { value, seed } => {
                        let target = target / 8;
                        if target > value.len() {
                            let more = words(*seed, target);
                            value.extend_from_slice(&more[value.len()..]);
                        } else {
                            value.truncate(target);
                            value.shrink_to_fit();
                        }
                    }
                    _ => {}
                }
                self.held[at].check(&self.name);
            }
            // Texts joined and concatenated (what `str::join` copies must be what was measured).
            80..=91 => {
                let texts: Vec<&str> = self
                    .held
                    .iter()
                    .filter_map(|held| match held {
                        Held::Text { value, .. } | Held::Hashed { value, .. } => {
                            Some(value.as_str())
                        }
                        _ => None,
                    })
                    .take(2 + self.rng.below(5))
                    .collect();
                let joined = texts.join("£|");
                let concatenated = texts.concat();
                let mut expected = String::new();
                for (i, part) in texts.iter().enumerate() {
                    if i > 0 {
                        expected.push_str("£|");
                    }
                    expected.push_str(part);
                }
                assert!(joined == expected, "{}: join lost bytes", self.name);
                assert!(
                    concatenated == texts.iter().map(|t| t.to_string()).collect::<String>(),
                    "{}: concat lost bytes",
                    self.name
                );
                let h = hash(joined.as_bytes());
                self.held.push(Held::Hashed {
                    value: joined,
                    hash: h,
                });
            }
            // A text through JS and back (wasm-bindgen's own malloc and realloc of the glue).
            _ => {
                let sent = text(seed, self.rng.size());
                let back = JsValue::from_str(&sent).as_string().unwrap();
                assert!(
                    back == sent,
                    "{}: a text came back from JS changed",
                    self.name
                );
                let h = hash(back.as_bytes());
                self.held.push(Held::Hashed {
                    value: back,
                    hash: h,
                });
            }
        }
        if self.steps.is_multiple_of(64) {
            self.check_all();
        }
    }
}

/// Runs `steps` changes of `pool`, `batch` at a time, awaiting between batches (a new task of
/// the event loop or a microtask): the other tasks' changes come in between.
async fn churn(pool: Rc<RefCell<Pool>>, steps: usize, batch: usize) {
    for round in 0..steps / batch {
        for _ in 0..batch {
            pool.borrow_mut().step();
        }
        if round.is_multiple_of(2) {
            pause(0).await;
        } else {
            let tick = js_sys::Promise::resolve(&JsValue::NULL);
            wasm_bindgen_futures::JsFuture::from(tick).await.unwrap();
        }
    }
    pool.borrow().check_all();
}

#[wasm_bindgen_test]
async fn the_heap_keeps_what_was_written_through_churn_across_tasks_and_callbacks() {
    // Fixed seeds, and one new each run (printed by a failure).
    let fresh = (js_sys::Math::random() * 1e15) as u64;
    let seeds = [1, 2, 3, fresh];
    let pools: Vec<Rc<RefCell<Pool>>> = seeds
        .iter()
        .map(|seed| Rc::new(RefCell::new(Pool::new("task", *seed))))
        .collect();

    // Tasks interleaving across awaits.
    let finished = Rc::new(RefCell::new(0));
    for (i, pool) in pools.iter().enumerate() {
        let (pool, finished) = (pool.clone(), finished.clone());
        wasm_bindgen_futures::spawn_local(async move {
            churn(pool, 1_000, 10 + 7 * i).await;
            *finished.borrow_mut() += 1;
        });
    }

    // Changes made inside JS callbacks: a JS loop calling Rust, and timers firing Rust closures.
    let in_callbacks = Rc::new(RefCell::new(Pool::new("callbacks", fresh ^ 0xC0FFEE)));
    let items = js_sys::Array::new_with_length(300);
    items.fill(&JsValue::TRUE, 0, 300);
    {
        let pool = in_callbacks.clone();
        items.for_each(&mut |_, _, _| pool.borrow_mut().step());
    }
    let fired = Rc::new(RefCell::new(0));
    for delay in 0..20 {
        let (pool, fired) = (in_callbacks.clone(), fired.clone());
        let callback = Closure::once_into_js(move || {
            for _ in 0..15 {
                pool.borrow_mut().step();
            }
            *fired.borrow_mut() += 1;
        });
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), delay)
            .unwrap();
    }

    common::until(60_000.0, "the churning tasks did not finish", || {
        let done = *finished.borrow() == pools.len() && *fired.borrow() == 20;
        async move { done }
    })
    .await;
    in_callbacks.borrow().check_all();
    for pool in &pools {
        pool.borrow().check_all();
    }
    // Freed in yet another order: every other pool first.
    for pool in pools
        .iter()
        .step_by(2)
        .chain(pools.iter().skip(1).step_by(2))
    {
        pool.borrow_mut().held.clear();
    }
    in_callbacks.borrow_mut().held.clear();
}
