//! [`Counted`]: the reference-counted pointer of the C-tree's vertex-tree nodes.
//! `std::sync::Arc` without weak references: one count in front of the value instead of two,
//! and no locked instruction to release or take apart a node that nothing else holds.
//!
//! An `Arc` keeps a weak count beside the strong one, so that a `Weak` can be upgraded: its
//! drop must decrement the strong count (a locked instruction) even when it is the last
//! owner, because a concurrent `Weak::upgrade` could otherwise revive the value, and freeing
//! decrements the weak count too (a second one). The C-tree never makes a weak reference, so
//! a count of one read by the holder of that reference means no other reference exists or
//! can appear (making one takes an existing one): the holder may free the value with a plain
//! load of the count. Path copying frees the nodes of a replaced version one by one, each the
//! last reference to its node; `Arc::try_unwrap` cost a compare-exchange and a locked
//! decrement per node there. The single count also makes a vertex-tree node (56 bytes) with
//! its count 64 bytes: one line with an allocator that aligns 64-byte blocks to 64 bytes,
//! as mimalloc (Weald's binaries' global allocator) does, where an `Arc`'s 16 bytes of
//! counts made 72 bytes (an 80-byte allocation, which straddles two lines).
//!
//! The semantics are those of `Arc` otherwise: clones count with a relaxed increment, owners
//! that are not the last release with a release decrement, and whoever sees the count reach
//! one (or zero) acquires before it touches the value.

use std::marker::PhantomData;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicUsize, Ordering};

/// The allocation: the count, then the value (`repr(C)`: the count is the first word, so a
/// prefetch of the allocation's start loads it, [`Counted::count_ptr`]).
#[repr(C)]
struct Inner<T> {
    count: AtomicUsize,
    value: T,
}

/// A shared, immutable `T` with one atomic reference count and no weak references.
pub(crate) struct Counted<T> {
    ptr: NonNull<Inner<T>>,
    /// Owns an `Inner<T>` (drop check, variance).
    _owns: PhantomData<Inner<T>>,
}

// SAFETY: as `Arc<T>`: sharing or sending a `Counted` shares the `T` between threads (Sync)
// and may drop it on another thread (Send).
unsafe impl<T: Send + Sync> Send for Counted<T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for Counted<T> {}

/// Counts above this abort the process, as `Arc`'s do (a leak of clones, not a real count).
const MAX_COUNT: usize = isize::MAX as usize;

impl<T> Counted<T> {
    /// Bytes of an allocation: the value with its count.
    pub(crate) const ALLOC_BYTES: usize = std::mem::size_of::<Inner<T>>();

    /// A new value with a count of one.
    #[inline]
    pub(crate) fn new(value: T) -> Self {
        let b = Box::new(Inner {
            count: AtomicUsize::new(1),
            value,
        });
        Counted {
            // SAFETY: `Box::into_raw` is never null.
            ptr: unsafe { NonNull::new_unchecked(Box::into_raw(b)) },
            _owns: PhantomData,
        }
    }

    #[inline(always)]
    fn inner(&self) -> &Inner<T> {
        // SAFETY: the allocation lives while any `Counted` of it does.
        unsafe { self.ptr.as_ref() }
    }

    /// The value's address (the same for every reference to it).
    #[inline(always)]
    pub(crate) fn as_ptr(this: &Self) -> *const T {
        // SAFETY: in bounds of the live allocation (no reference is made). `&raw mut`, as
        // std's `Arc::as_ptr`: the pointer keeps the allocation's mutable provenance, which
        // the in-place updates of a unique node rely on (`vtree::BlockIndex`).
        unsafe { &raw mut (*this.ptr.as_ptr()).value }
    }

    /// Where the count of the value at `p` (from [`as_ptr`](Self::as_ptr)) lies: a prefetch
    /// target, never read through.
    #[inline(always)]
    pub(crate) fn count_ptr(p: *const T) -> *const u8 {
        (p as *const u8).wrapping_sub(std::mem::offset_of!(Inner<T>, value))
    }

    /// Do `a` and `b` point to the same value? (Reads neither.)
    #[inline(always)]
    pub(crate) fn ptr_eq(a: &Self, b: &Self) -> bool {
        a.ptr == b.ptr
    }

    /// The number of references (a snapshot, as `Arc::strong_count`).
    #[inline(always)]
    pub(crate) fn count(this: &Self) -> usize {
        this.inner().count.load(Ordering::Relaxed)
    }

    /// Is this the only reference? Then nothing else can reach the value until this one is
    /// cloned, and what every former owner did before releasing it happens before what the
    /// caller does next.
    #[inline(always)]
    fn unique(this: &Self) -> bool {
        if Self::count(this) != 1 {
            return false;
        }
        // The other owners' release decrements (read above, or earlier ones of its release
        // sequence) happen before what we do with the value.
        fence(Ordering::Acquire);
        true
    }

    /// The value, to edit, if this is its only reference (`Arc::get_mut`).
    #[inline(always)]
    pub(crate) fn get_mut(this: &mut Self) -> Option<&mut T> {
        // SAFETY: the only reference, held by `&mut`: no other access while the borrow lives.
        Self::unique(this).then(|| unsafe { &mut (*this.ptr.as_ptr()).value })
    }

    /// The value, if this is its only reference (its allocation freed); else the reference.
    #[inline]
    pub(crate) fn try_unwrap(this: Self) -> Result<T, Self> {
        if !Self::unique(&this) {
            return Err(this);
        }
        let this = std::mem::ManuallyDrop::new(this);
        // SAFETY: the only reference, never used again (`ManuallyDrop`): the value is moved
        // out once and the allocation freed without dropping it again (`Inner` has no `Drop`
        // of its own: moving it out of the box frees the box alone).
        let inner = unsafe { *Box::from_raw(this.ptr.as_ptr()) };
        Ok(inner.value)
    }

    /// Free the value and its allocation (the last reference is going).
    #[inline(never)]
    fn drop_slow(&mut self) {
        // SAFETY: no other reference exists (the caller saw the count reach one or zero and
        // acquired): the allocation is freed once, from the `Box` it was made by.
        drop(unsafe { Box::from_raw(self.ptr.as_ptr()) });
    }
}

impl<T> Clone for Counted<T> {
    #[inline]
    fn clone(&self) -> Self {
        // Relaxed, as in `Arc::clone`: a new reference is made from an existing one, whose
        // holder keeps the value alive meanwhile.
        let old = self.inner().count.fetch_add(1, Ordering::Relaxed);
        if old > MAX_COUNT {
            std::process::abort();
        }
        Counted {
            ptr: self.ptr,
            _owns: PhantomData,
        }
    }
}

impl<T> Drop for Counted<T> {
    #[inline]
    fn drop(&mut self) {
        // The last reference frees without a locked instruction (no weak reference can revive
        // the value); another owner's release decrement makes the last owner's load see one.
        if Self::unique(self) {
            self.drop_slow();
        } else if self.inner().count.fetch_sub(1, Ordering::Release) == 1 {
            // The others released it meanwhile: acquire, as `Arc`'s drop does.
            fence(Ordering::Acquire);
            self.drop_slow();
        }
    }
}

impl<T> Deref for Counted<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        &self.inner().value
    }
}

#[cfg(test)]
mod tests {
    use super::Counted;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Counts its drops.
    struct Probe(Arc<AtomicUsize>);
    impl Drop for Probe {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn counts_clones_and_frees_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let a = Counted::new(Probe(drops.clone()));
        let b = a.clone();
        assert_eq!(Counted::count(&a), 2);
        assert!(Counted::ptr_eq(&a, &b));
        drop(a);
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        assert_eq!(Counted::count(&b), 1);
        drop(b);
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn get_mut_and_try_unwrap_only_when_unique() {
        let mut a = Counted::new(5u64);
        let b = a.clone();
        assert!(Counted::get_mut(&mut a).is_none());
        let a = Counted::try_unwrap(a).unwrap_err();
        drop(b);
        let mut a = a;
        *Counted::get_mut(&mut a).unwrap() += 1;
        assert_eq!(Counted::try_unwrap(a).ok(), Some(6));
    }

    #[test]
    fn try_unwrap_does_not_drop_the_value_twice() {
        let drops = Arc::new(AtomicUsize::new(0));
        let p = Counted::try_unwrap(Counted::new(Probe(drops.clone())))
            .ok()
            .unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        drop(p);
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn many_threads_clone_and_drop() {
        let drops = Arc::new(AtomicUsize::new(0));
        let a = Counted::new(Probe(drops.clone()));
        std::thread::scope(|s| {
            for _ in 0..4 {
                let c = a.clone();
                s.spawn(move || {
                    let v: Vec<_> = (0..10_000).map(|_| c.clone()).collect();
                    drop(v);
                    drop(c);
                });
            }
        });
        assert_eq!(Counted::count(&a), 1);
        drop(a);
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_vertex_tree_node_is_one_line() {
        type Inner = super::Inner<crate::ctree::vtree::VNode<()>>;
        assert_eq!(std::mem::size_of::<Inner>(), 64);
    }
}
