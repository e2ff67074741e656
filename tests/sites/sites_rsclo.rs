// sites_rsclo.rs: closures and async bodies under debuginfo=line-tables-only, built with legacy
// symbol names (rustc's default) and with v0, and under -g (legacy symbols, which name every
// closure and async body "{{closure}}", where DWARF says "{closure#0}"). Every block is leaked (mem::forget), so the sites
// live at exit hold each exactly:
// 1,100,000 bytes from a closure given to a generic function that is not inlined (install);
// 1,200,000 from a thread's closure (std::thread::spawn in spawn_worker);
// 1,300,000 from a closure called through a Box<dyn Fn>, out of line (make_fn);
// 1,400,000 (2 x 700,000) from a closure in an inherent method (Aux::rows);
// 1,500,000 from an async fn's body, 1,600,000 from an async block that is the second body of
// make_block (its closure is the first), polled by block_on; 1,700,000 from an async block
// polled through a Box<dyn Future> on a thread (its body out of line);
// 400,000 (4 x 50,000 u16) and 800,000 (4 x 50,000 u32) from the closure of the generic
// rows_of, one instance each;
// 1,800,000 from a closure of a trait's method (Msm::run for Pippenger) on a scoped thread,
// where the method is not on the thread's stack, and 1,900,000 from another impl's (Quick's,
// inlined everywhere: no symbol); 1,000,000 and 2,000,000 from the closures of
// a generic type's method (Prover<u16>::par and Prover<u32>::par) on scoped threads;
// 2,100,000 from a derived Clone inlined into the function that copies (copy_params), which
// line tables alone name "clone", as glibc names where a thread starts.
use std::future::Future;
use std::hint::black_box;
use std::mem::forget;
use std::pin::{pin, Pin};
use std::task::{Context, Poll, Waker};

#[inline(never)]
fn install<R, F: FnOnce() -> R>(f: F) -> R {
    f()
}

#[inline(never)]
fn prove() {
    forget(black_box(install(|| vec![1u8; black_box(1_100_000)]))); // SITE:rc_install
}

#[inline(never)]
fn spawn_worker() {
    std::thread::spawn(|| forget(black_box(vec![2u8; 1_200_000]))).join().unwrap(); // SITE:rc_thread
}

#[inline(never)]
fn make_fn() -> Box<dyn Fn(usize) -> Vec<u8>> {
    Box::new(|n| vec![3u8; n]) // SITE:rc_boxed
}

struct Aux;

impl Aux {
    #[inline(never)]
    fn rows(&self) -> Vec<Vec<u8>> {
        (0..2).map(|_| vec![4u8; 700_000]).collect() // SITE:rc_method
    }
}

#[inline(never)]
fn rows_of<T: Copy + Default>(n: usize) -> Vec<Vec<T>> {
    (0..4).map(|_| vec![T::default(); n]).collect() // SITE:rc_generic
}

trait Msm {
    fn run(&self, n: usize) -> Vec<u8>;
}

struct Pippenger;

impl Msm for Pippenger {
    #[inline(never)]
    fn run(&self, n: usize) -> Vec<u8> {
        std::thread::scope(|s| s.spawn(|| vec![8u8; n]).join().unwrap()) // SITE:rc_trait
    }
}

// another impl of the trait, whose run is inlined everywhere (no symbol of its own): its
// closure is not Pippenger's
struct Quick;

impl Msm for Quick {
    #[inline(always)]
    fn run(&self, n: usize) -> Vec<u8> {
        std::thread::scope(|s| s.spawn(|| vec![9u8; n]).join().unwrap()) // SITE:rc_trait_inl
    }
}

struct Prover<T>(std::marker::PhantomData<T>);

impl<T: Copy + Default + Send> Prover<T> {
    #[inline(never)]
    fn par(&self, n: usize) -> Vec<T> {
        std::thread::scope(|s| s.spawn(|| vec![T::default(); n]).join().unwrap()) // SITE:rc_par
    }
}

struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

#[inline(never)]
fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

async fn load_params(n: usize) -> usize {
    let v = vec![5u8; n]; // SITE:rc_async_fn
    YieldNow(false).await;
    let l = v.len();
    forget(black_box(v));
    l
}

#[inline(never)]
fn make_block(n: usize) -> impl Future<Output = usize> {
    let c = black_box(|x: usize| x + 1);
    async move {
        let v = vec![6u8; c(n)]; // SITE:rc_async_block
        YieldNow(false).await;
        let l = v.len();
        forget(black_box(v));
        l
    }
}

#[inline(never)]
fn boxed_task() -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async {
        YieldNow(false).await;
        forget(black_box(vec![7u8; 1_700_000])); // SITE:rc_async_task
    })
}

#[inline(never)]
fn run_task(t: Pin<Box<dyn Future<Output = ()> + Send>>) {
    std::thread::spawn(move || {
        let mut t = t;
        let mut cx = Context::from_waker(Waker::noop());
        while t.as_mut().poll(&mut cx).is_pending() {}
    })
    .join()
    .unwrap();
}

#[derive(Clone)] // SITE:rc_clone
#[allow(dead_code)]
struct Params { h: Vec<u8> }

#[inline(never)]
fn copy_params(p: &Params) -> Params {
    p.clone()
}

fn main() {
    prove();
    spawn_worker();
    let f = black_box(make_fn());
    forget(black_box(f(1_300_000)));
    forget(black_box(Aux.rows()));
    forget(black_box(rows_of::<u16>(50_000)));
    forget(black_box(rows_of::<u32>(50_000)));
    black_box(block_on(load_params(black_box(1_500_000))));
    black_box(block_on(make_block(black_box(1_599_999))));
    run_task(boxed_task());
    forget(black_box(black_box(&Pippenger as &dyn Msm).run(1_800_000)));
    forget(black_box(Quick.run(1_900_000)));
    forget(black_box(Prover::<u16>(std::marker::PhantomData).par(500_000)));
    forget(black_box(Prover::<u32>(std::marker::PhantomData).par(500_000)));
    let p = black_box(Params { h: vec![5u8; black_box(2_100_000)] });
    forget(black_box(copy_params(&p)));
}
