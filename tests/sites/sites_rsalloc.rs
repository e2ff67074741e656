// sites_rsalloc.rs: a program with its own #[global_allocator] (a counting wrapper of System,
// as many provers have), a generic function and a const generic one, built with -O -g and with
// Cargo's debug = "line-tables-only" (legacy and v0 symbol names). Live at the peak: 3,000,000
// bytes from vec! in load_params, 800,000 (100,000 u64) from build_aux::<u64>, 40,000 from
// make::<40000> and 500,000 from Slab::record, inlined into the program's Slab::free. With
// line-tables-only the wrapper's alloc, inlined into __rust_alloc, is named "alloc" alone (it
// was taken for the program's frame: every block's site), and generic functions by their last
// name with arguments ("build_aux<u64>": no crate path, so patterns like "*::build_aux"
// matched nothing); the symbol table names them in full. Also 60,000 bytes from with_fill, a
// generic function given a closure, and 70,000 from with_dyn::<dyn Fn(usize) -> usize>: their
// arguments read differently in DWARF ("{closure_env#0}", "Output=usize", "(usize)") and in v0
// names ("{closure#0}", "Output = usize", "(usize,)"), and with line-tables-only and v0 they
// kept DWARF's short name ("with_fill<sites_rsalloc::main::{closure_env#0}>").
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static CALLS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        CALLS.fetch_add(1, Relaxed);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static A: Counting = Counting;

// a method of the program named as an allocator is (line-tables-only names it "free" alone):
// what it inlines stays the program's, the site is record's line, 500,000 bytes
pub struct Slab {
    log: Vec<Vec<u8>>,
}

impl Slab {
    #[inline(always)]
    fn record(&mut self, n: usize) {
        self.log.push(vec![7u8; n]); // SITE:ra_record
    }
    #[inline(always)]
    pub fn free(&mut self, n: usize) {
        self.record(n)
    }
}

#[inline(never)]
fn run_slab(s: &mut Slab) {
    s.free(black_box(500_000));
}

pub mod prover {
    #[inline(never)]
    pub fn load_params(n: usize) -> Vec<u8> {
        vec![1u8; n] // SITE:ra_params
    }

    #[inline(never)]
    pub fn build_aux<T: Default + Clone>(n: usize) -> Vec<T> {
        vec![T::default(); n] // SITE:ra_generic
    }

    #[inline(never)]
    pub fn make<const N: usize>() -> Box<[u8; N]> {
        Box::new([3u8; N]) // SITE:ra_const
    }

    #[inline(never)]
    pub fn with_fill<F: Fn(usize) -> u8>(n: usize, f: F) -> Vec<u8> {
        let mut v = vec![1u8; n]; // SITE:ra_closure_arg
        v[0] = f(n);
        v
    }

    #[inline(never)]
    pub fn with_dyn<T: ?Sized>(_t: &T, n: usize) -> Vec<u8> {
        vec![5u8; n] // SITE:ra_dyn_arg
    }
}

fn main() {
    let a = prover::load_params(black_box(3_000_000));
    let b: Vec<u64> = prover::build_aux::<u64>(black_box(100_000));
    let c = prover::make::<40000>();
    let d = prover::with_fill(black_box(60_000), |k| (k & 0x7f) as u8);
    let f: &dyn Fn(usize) -> usize = &|x| x + 1;
    let e = prover::with_dyn::<dyn Fn(usize) -> usize>(f, black_box(70_000));
    let mut s = Slab { log: Vec::with_capacity(4) };
    run_slab(&mut s);
    black_box((&a, &b, &c, &d, &e, &s));
    println!("{}", CALLS.load(Relaxed) >= 3);
}
