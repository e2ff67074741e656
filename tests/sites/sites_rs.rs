// sites_rs.rs: known call paths through Rust's allocator plumbing (vec! -> from_elem ->
// RawVec -> __rust_alloc, and Vec::push growth through realloc), built with rustc -O -g.
// Live at both peaks: 3,000,000 bytes from vec! in make_buffer and 1,048,576 bytes (capacity
// 131,072 u64 after doubling) from the pushes in grow_list.
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

fn main() {
    let a = make_buffer(3_000_000);
    let b = grow_list(100_000);
    sleep(Duration::from_millis(150));
    black_box(&a);
    black_box(&b);
    drop(a);
    drop(b);
    sleep(Duration::from_millis(30));
}
