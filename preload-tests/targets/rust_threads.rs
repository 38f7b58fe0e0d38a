// A Rust program on the standard library alone: named threads, a Mutex and Condvar handoff
// (futex waits through libc's syscall()), a channel, and an epoll wait with a timeout.
use std::os::raw::c_int;
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

#[repr(C, packed)]
struct EpollEvent {
    events: u32,
    data: u64,
}

extern "C" {
    fn epoll_create1(flags: c_int) -> c_int;
    fn epoll_wait(epfd: c_int, events: *mut EpollEvent, max: c_int, timeout: c_int) -> c_int;
    fn close(fd: c_int) -> c_int;
}

fn main() {
    let ready = Arc::new((Mutex::new(false), Condvar::new()));
    let (tx, rx) = mpsc::channel();

    let mut workers = Vec::new();
    for i in 0..2u64 {
        let ready = Arc::clone(&ready);
        let tx = tx.clone();
        workers.push(
            thread::Builder::new()
                .name(format!("rust-worker-{}", i))
                .spawn(move || {
                    if i == 0 {
                        thread::sleep(Duration::from_millis(50));
                        let (lock, cvar) = &*ready;
                        *lock.lock().unwrap() = true;
                        cvar.notify_all();
                    }
                    tx.send((i, (1..=1000u64).map(|x| x * (i + 1)).sum::<u64>())).unwrap();
                })
                .unwrap(),
        );
    }
    drop(tx);

    let (lock, cvar) = &*ready;
    let mut done = lock.lock().unwrap();
    while !*done {
        done = cvar.wait(done).unwrap();
    }
    drop(done);

    let mut sums: Vec<(u64, u64)> = rx.iter().collect();
    sums.sort();
    for w in workers {
        w.join().unwrap();
    }
    for (i, s) in sums {
        println!("worker {}: {}", i, s);
    }

    let n = unsafe {
        let ep = epoll_create1(0);
        let mut ev = EpollEvent { events: 0, data: 0 };
        let n = epoll_wait(ep, &mut ev, 1, 20);
        close(ep);
        n
    };
    println!("epoll_wait: {}", n);
}
