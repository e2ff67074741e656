// sites_rsinl.rs: one function that the optimiser inlines in one build and not in the other,
// built with -C debuginfo=line-tables-only both times, as a change between two versions of a
// program would make it: line-tables-only names the inlined copy "build_aux" (its last name),
// the symbol "sites_rsinl::prover::build_aux". Live at the peak heap: 1,000,000 bytes from
// build_aux (2,000,000 in the build with --cfg v2, where it is never inlined).
use std::hint::black_box;
use std::thread::sleep;
use std::time::Duration;

mod prover {
    #[cfg_attr(v2, inline(never))]
    #[cfg_attr(not(v2), inline(always))]
    pub fn build_aux(n: usize) -> Vec<u8> {
        std::hint::black_box(vec![3u8; n]) // SITE:inl_aux
    }

    #[inline(never)]
    pub fn synthesize() -> Vec<u8> {
        build_aux(if cfg!(v2) { 2_000_000 } else { 1_000_000 })
    }
}

fn main() {
    let a = prover::synthesize();
    sleep(Duration::from_millis(50));
    black_box(&a);
    drop(a);
}
