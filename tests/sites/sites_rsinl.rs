// sites_rsinl.rs: one function that the optimiser inlines in one build and not in the other,
// built with -C debuginfo=line-tables-only both times, as a change between two versions of a
// program would make it: line-tables-only names the inlined copy "build_aux" (its last name),
// the symbol "sites_rsinl::prover::build_aux". Live at the peak heap: 1,000,000 bytes from
// build_aux (2,000,000 in the build with --cfg v2, where it is never inlined), and 800,000
// from the generic build_gen::<u64> (1,600,000 with --cfg v2) and 400,000 from build_gen::<u32>
// (800,000), whose inlined copies line-tables-only names "build_gen<u64>" and "build_gen<u32>"
// (the v0 symbols: "sites_rsinl::prover::build_gen::<u64>", ...; legacy symbols drop the
// arguments, one path for both copies: "sites_rsinl::prover::build_gen").
use std::hint::black_box;
use std::thread::sleep;
use std::time::Duration;

mod prover {
    #[cfg_attr(v2, inline(never))]
    #[cfg_attr(not(v2), inline(always))]
    pub fn build_aux(n: usize) -> Vec<u8> {
        std::hint::black_box(vec![3u8; n]) // SITE:inl_aux
    }

    #[cfg_attr(v2, inline(never))]
    #[cfg_attr(not(v2), inline(always))]
    pub fn build_gen<T: Default + Clone>(n: usize) -> Vec<T> {
        std::hint::black_box(vec![T::default(); n]) // SITE:inl_gen
    }

    #[inline(never)]
    pub fn synthesize() -> Vec<u8> {
        build_aux(if cfg!(v2) { 2_000_000 } else { 1_000_000 })
    }

    #[inline(never)]
    pub fn witness() -> (Vec<u64>, Vec<u32>) {
        let n = if cfg!(v2) { 200_000 } else { 100_000 };
        (build_gen::<u64>(n), build_gen::<u32>(n))
    }
}

fn main() {
    let a = prover::synthesize();
    let w = prover::witness();
    sleep(Duration::from_millis(50));
    black_box((&a, &w));
    drop(a);
    drop(w);
}
