// sites_rs.rs: known call paths through Rust's allocator plumbing (vec! -> from_elem ->
// RawVec -> __rust_alloc, and Vec::push growth through realloc), built with rustc -O -g, and
// again with -C debuginfo=line-tables-only -C symbol-mangling-version=v0 (names without crate
// paths; std's code for primitive types named "<str>::repeat", "<u8 as ...>::to_vec").
// Live at both peaks: 3,000,000 bytes from vec! in make_buffer and 1,048,576 bytes (capacity
// 131,072 u64 after doubling) from the pushes in grow_list; 1,000,000 from "xy".repeat in
// repeat_str, 500,000 from to_vec in copy_slice, a HashMap's table (hashbrown) in make_map, and
// 262,144 (capacity 65,536 u32) pushed by fill_to, the program's own trait implemented for Vec
// (named "<alloc::vec::Vec<u32> as sites_rs::Fill>::fill_to": it was taken for Vec's code);
// 200,000 bytes (200 x 1,000) from a closure in make_rows, inlined into the iterator code;
// 50,000 (100 x 500) from a closure of composed, which apply2 gets with maker's (both #0);
// 120,000 (100 x 300 u32) and 60,000 (100 x 300 u16) from the closure of the generic rows_of,
// inlined into the iterator code of each instance; 700,000 and 900,000 bytes from the two
// thread closures of two_threads, out of line (-g's legacy symbols name both
// "sites_rs::two_threads::{{closure}}", DWARF "{closure#0}" and "{closure#1}").
use std::collections::HashMap;
use std::hint::black_box;
use std::thread::sleep;
use std::time::Duration;

#[inline(never)]
fn make_buffer(n: usize) -> Vec<u8> {
    let v = vec![7u8; n]; // SITE:rs_vec
    black_box(v)
}

#[inline(never)]
fn grow_list(n: u64) -> Vec<u64> {
    let mut v = Vec::new();
    for i in 0..n {
        v.push(black_box(i)); // SITE:rs_push
    }
    black_box(v)
}

// a name outside ASCII: legacy mangling escapes it ("gr$uf6$$udf$e_puffer"), which libiberty
// leaves as it is
#[inline(never)]
fn größe_puffer(n: usize) -> Vec<u8> {
    black_box(vec![3u8; n]) // SITE:rs_utf8
}

#[inline(never)]
fn repeat_str(n: usize) -> String {
    black_box("xy".repeat(n)) // SITE:rs_repeat
}

#[inline(never)]
fn copy_slice(s: &[u8]) -> Vec<u8> {
    black_box(s.to_vec()) // SITE:rs_to_vec
}

#[inline(never)]
fn make_map(n: usize) -> HashMap<u64, u64> {
    black_box(HashMap::with_capacity(n)) // SITE:rs_map
}

#[inline(never)]
fn make_rows(n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| vec![i as u8; 1000]).collect() // SITE:rs_closure
}

fn maker() -> impl Fn(usize) -> usize {
    |x| x * 3 + 1
}

#[inline(always)]
fn apply2<A: Fn(usize) -> usize, B: Fn(usize) -> Vec<u8>>(a: A, b: B, i: usize) -> Vec<u8> {
    b(a(i))
}

#[inline(never)]
fn composed(n: usize) -> Vec<Vec<u8>> {
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        v.push(apply2(maker(), |k| vec![k as u8; 500], i)); // SITE:rs_composed
    }
    v
}

#[inline(never)]
fn rows_of<T: Copy + Default>(n: usize) -> Vec<Vec<T>> {
    (0..n).map(|_| vec![T::default(); 300]).collect() // SITE:rs_generic_closure
}

#[inline(never)]
fn two_threads() -> (Vec<u8>, Vec<u8>) {
    let a = std::thread::spawn(|| black_box(vec![1u8; 700_000])); // SITE:rs_thread0
    let b = std::thread::spawn(|| black_box(vec![2u8; 900_000])); // SITE:rs_thread1
    (a.join().unwrap(), b.join().unwrap())
}

trait Fill {
    fn fill_to(&mut self, n: u32);
}

impl Fill for Vec<u32> {
    #[inline(never)]
    fn fill_to(&mut self, n: u32) {
        for i in 0..n {
            self.push(black_box(i)); // SITE:rs_trait
        }
    }
}

fn main() {
    let mut f: Vec<u32> = Vec::new();
    f.fill_to(50_000);
    let a = make_buffer(3_000_000);
    let b = grow_list(100_000);
    let c = repeat_str(500_000);
    let d = copy_slice(&a[..500_000]);
    let e = make_map(100_000);
    let g = make_rows(200);
    let h = composed(100);
    let r32 = rows_of::<u32>(100);
    let r16 = rows_of::<u16>(100);
    let u = größe_puffer(40_000);
    let t = two_threads();
    sleep(Duration::from_millis(150));
    black_box(&a);
    black_box(&b);
    black_box((&c, &d, &e, &f, &g, &h, &r32, &r16, &u, &t));
    drop((c, d, e, f, g, h, r32, r16, u, t));
    drop(a);
    drop(b);
    sleep(Duration::from_millis(30));
}
