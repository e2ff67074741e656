// sites_rsnomain.rs: a #![no_main] program whose own C-ABI main calls the standard library
// straight away: a HashMap of 100,000 entries (2 MiB of table) made by main itself. Built
// with line-tables-only debug info, where its frame is named "main" as rustc's generated C
// main is, but it has a source line of its own: the site is this main, not std's or alloc's.
#![no_main]
use std::collections::HashMap;

#[no_mangle]
pub extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    let m: HashMap<u64, u64> = HashMap::with_capacity(100000);
    std::hint::black_box(&m);
    0
}
