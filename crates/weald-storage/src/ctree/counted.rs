//! [`Counted`] and [`CountedSlice`]: the reference-counted pointers of the C-tree's vertex-tree
//! nodes and block arrays, and the [`Spare`] allocations a writer keeps for them.
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
//! one (or zero) acquires before it touches the value. [`CountedSlice`] is the same for a
//! slice (a block's trees), with the length beside the count (16 bytes, as an `Arc<[T]>`'s
//! counts), so that the pointer is one word where an `Arc<[T]>`'s is two: a vertex-tree node
//! is 48 bytes of fields, padded to 56 to keep the 64-byte line with its count.

use std::alloc::Layout;
use std::cell::Cell;
use std::marker::PhantomData;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicUsize, Ordering};
use weald_graph::prefetch;

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

/// Is `count` (of a reference its caller holds) one? Then no other reference exists or can
/// appear, and what every former owner did before releasing happens before what the caller
/// does next.
#[inline(always)]
fn is_unique(count: &AtomicUsize) -> bool {
    if count.load(Ordering::Relaxed) != 1 {
        return false;
    }
    // The other owners' release decrements (read above, or earlier ones of its release
    // sequence) happen before what we do with the value.
    fence(Ordering::Acquire);
    true
}

/// Count a new reference, made from one the caller holds.
#[inline(always)]
fn retain(count: &AtomicUsize) {
    // Relaxed, as in `Arc::clone`: the holder of the existing reference keeps the value alive
    // meanwhile.
    if count.fetch_add(1, Ordering::Relaxed) > MAX_COUNT {
        std::process::abort();
    }
}

/// Release the caller's reference: true if it was the last (the caller frees the value).
#[inline(always)]
fn release(count: &AtomicUsize) -> bool {
    // The last reference frees without a locked instruction (no weak reference can revive
    // the value); another owner's release decrement makes the last owner's load see one.
    if is_unique(count) {
        return true;
    }
    if count.fetch_sub(1, Ordering::Release) == 1 {
        // The others released it meanwhile: acquire, as `Arc`'s drop does.
        fence(Ordering::Acquire);
        return true;
    }
    false
}

impl<T> Counted<T> {
    /// Bytes of an allocation: the value with its count.
    pub(crate) const ALLOC_BYTES: usize = std::mem::size_of::<Inner<T>>();

    /// The [`Spare`] class of this type's allocations (`NONE` if a spare keeps none).
    const CLASS: usize = spare_class(Layout::new::<Inner<T>>());

    /// A new value with a count of one (in an allocation of the thread's [`Spare`], if one
    /// is in use and has one).
    #[inline]
    pub(crate) fn new(value: T) -> Self {
        let inner = Inner {
            count: AtomicUsize::new(1),
            value,
        };
        if Self::CLASS != NONE {
            if let Some(p) = spare_take(Self::CLASS) {
                let p = p.cast::<Inner<T>>();
                // SAFETY: a free allocation of `Inner<T>`'s layout (its class), from the
                // global allocator, now ours: written whole before any use.
                unsafe { p.as_ptr().write(inner) };
                return Counted {
                    ptr: p,
                    _owns: PhantomData,
                };
            }
        }
        Counted {
            // SAFETY: `Box::into_raw` is never null.
            ptr: unsafe { NonNull::new_unchecked(Box::into_raw(Box::new(inner))) },
            _owns: PhantomData,
        }
    }

    /// Free the allocation at `p`, whose value is gone (moved out or dropped): into the
    /// thread's [`Spare`] if one is in use and has room, else to the allocator.
    ///
    /// # Safety
    /// `p` is an allocation of a `Counted<T>` that nothing references any more.
    #[inline]
    unsafe fn free(p: NonNull<Inner<T>>) {
        if Self::CLASS != NONE && spare_put(p.cast(), Self::CLASS) {
            return;
        }
        // SAFETY: the caller's; the allocation was made with `Inner<T>`'s layout (by `Box`,
        // or by the allocator for a spare of the same layout).
        unsafe { std::alloc::dealloc(p.as_ptr().cast(), Layout::new::<Inner<T>>()) };
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
        is_unique(&this.inner().count)
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
        // out once, and the allocation freed without dropping it again.
        unsafe {
            let value = std::ptr::read(&raw const (*this.ptr.as_ptr()).value);
            Self::free(this.ptr);
            Ok(value)
        }
    }

    /// Free the value and its allocation (the last reference is going).
    #[inline(never)]
    fn drop_slow(&mut self) {
        // SAFETY: no other reference exists (the caller saw the count reach one or zero and
        // acquired): the value is dropped once, then its allocation freed. (Dropping the value
        // may free its children into the spare meanwhile: `free` looks the spare up after.)
        unsafe {
            std::ptr::drop_in_place(&raw mut (*self.ptr.as_ptr()).value);
            Self::free(self.ptr);
        }
    }
}

impl<T> Clone for Counted<T> {
    #[inline]
    fn clone(&self) -> Self {
        retain(&self.inner().count);
        Counted {
            ptr: self.ptr,
            _owns: PhantomData,
        }
    }
}

impl<T> Drop for Counted<T> {
    #[inline]
    fn drop(&mut self) {
        if release(&self.inner().count) {
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

/// The header of a [`CountedSlice`]'s allocation: the count, then the length; the elements
/// follow.
#[repr(C)]
struct SliceHeader {
    count: AtomicUsize,
    len: usize,
}

/// A shared, immutable `[T]` with one atomic reference count and no weak references: the
/// block arrays of the vertex tree. As [`Counted`], and its allocation is kept by a [`Spare`]
/// in use on the thread that frees it. `T`'s alignment is at most the header's (8).
pub(crate) struct CountedSlice<T> {
    ptr: NonNull<SliceHeader>,
    _owns: PhantomData<[T]>,
}

// SAFETY: as for `Counted`.
unsafe impl<T: Send + Sync> Send for CountedSlice<T> {}
// SAFETY: as for `Counted`.
unsafe impl<T: Send + Sync> Sync for CountedSlice<T> {}

impl<T> CountedSlice<T> {
    const HEADER: usize = {
        assert!(std::mem::align_of::<T>() <= std::mem::align_of::<SliceHeader>());
        std::mem::size_of::<SliceHeader>()
    };

    /// The layout of an allocation of `len` elements.
    fn layout(len: usize) -> Layout {
        let bytes = std::mem::size_of::<T>()
            .checked_mul(len)
            .and_then(|b| b.checked_add(Self::HEADER))
            .expect("a block array's size overflows");
        Layout::from_size_align(bytes, std::mem::align_of::<SliceHeader>())
            .expect("a block array's size overflows")
    }

    /// Bytes of the allocation of an array of `len` elements, header included.
    pub(crate) fn alloc_bytes(len: usize) -> usize {
        Self::layout(len).size()
    }

    /// Does a [`Spare`] keep the allocations of arrays of `len` elements (their [`layout`]'s
    /// class)?
    ///
    /// [`layout`]: Self::layout
    pub(crate) const fn spared(len: usize) -> bool {
        let bytes = Self::HEADER + len * std::mem::size_of::<T>();
        match Layout::from_size_align(bytes, std::mem::align_of::<SliceHeader>()) {
            Ok(l) => spare_class(l) != NONE,
            Err(_) => false,
        }
    }

    /// An array of `len` elements, each `fill(i)` (which must not panic: the array would leak).
    #[inline]
    pub(crate) fn from_fn(len: usize, mut fill: impl FnMut(usize) -> T) -> Self {
        let layout = Self::layout(len);
        let class = spare_class(layout);
        let p = match (class != NONE).then(|| spare_take(class)).flatten() {
            Some(p) => p.cast::<SliceHeader>(),
            None => {
                // SAFETY: the layout is not zero-sized (the header).
                let p = unsafe { std::alloc::alloc(layout) }.cast::<SliceHeader>();
                NonNull::new(p).unwrap_or_else(|| std::alloc::handle_alloc_error(layout))
            }
        };
        // SAFETY: a free allocation of `layout`, ours: the header, then `len` elements, each
        // written once, before any reference to them is made.
        unsafe {
            p.as_ptr().write(SliceHeader {
                count: AtomicUsize::new(1),
                len,
            });
            let first = p.as_ptr().cast::<u8>().add(Self::HEADER).cast::<T>();
            for i in 0..len {
                first.add(i).write(fill(i));
            }
        }
        CountedSlice {
            ptr: p,
            _owns: PhantomData,
        }
    }

    #[inline(always)]
    fn header(&self) -> &SliceHeader {
        // SAFETY: the allocation lives while any reference to it does.
        unsafe { self.ptr.as_ref() }
    }

    /// The first element's address (where it would be, for no elements).
    #[inline(always)]
    pub(crate) fn as_ptr(this: &Self) -> *const T {
        // SAFETY: within the live allocation (no reference is made). From the allocation's
        // pointer, with its mutable provenance (`Counted::as_ptr`).
        unsafe { this.ptr.as_ptr().cast::<u8>().add(Self::HEADER).cast::<T>() }
    }

    /// Where the count of the array whose first element is at `p` (from
    /// [`as_ptr`](Self::as_ptr)) lies: a prefetch target, never read through.
    #[inline(always)]
    pub(crate) fn count_ptr(p: *const T) -> *const u8 {
        (p as *const u8).wrapping_sub(Self::HEADER)
    }

    /// The number of references (a snapshot).
    #[inline(always)]
    pub(crate) fn count(this: &Self) -> usize {
        this.header().count.load(Ordering::Relaxed)
    }

    /// As [`Counted::unique`].
    #[inline(always)]
    fn unique(this: &Self) -> bool {
        is_unique(&this.header().count)
    }

    /// The elements, to edit, if this is the array's only reference.
    #[inline(always)]
    pub(crate) fn get_mut(this: &mut Self) -> Option<&mut [T]> {
        let len = this.header().len;
        // SAFETY: the only reference, held by `&mut`: no other access while the borrow lives.
        Self::unique(this)
            .then(|| unsafe { std::slice::from_raw_parts_mut(Self::as_ptr(this) as *mut T, len) })
    }

    /// Drop the elements and free the allocation (the last reference is going).
    #[inline(never)]
    fn drop_slow(&mut self) {
        let len = self.header().len;
        let layout = Self::layout(len);
        // SAFETY: no other reference exists (the caller saw the count reach one or zero and
        // acquired): the elements are dropped once, then the allocation, of `layout`, freed.
        unsafe {
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                Self::as_ptr(self) as *mut T,
                len,
            ));
            let class = spare_class(layout);
            if class == NONE || !spare_put(self.ptr.cast(), class) {
                std::alloc::dealloc(self.ptr.as_ptr().cast(), layout);
            }
        }
    }
}

impl<T> Clone for CountedSlice<T> {
    #[inline]
    fn clone(&self) -> Self {
        retain(&self.header().count);
        CountedSlice {
            ptr: self.ptr,
            _owns: PhantomData,
        }
    }
}

impl<T> Drop for CountedSlice<T> {
    #[inline]
    fn drop(&mut self) {
        if release(&self.header().count) {
            self.drop_slow();
        }
    }
}

impl<T> Deref for CountedSlice<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised elements follow the header, immutable while shared.
        unsafe { std::slice::from_raw_parts(Self::as_ptr(self), self.header().len) }
    }
}

/// The [`Spare`] classes: allocations of 8-byte alignment whose size is a multiple of
/// `SPARE_STEP`, below `SPARE_STEP * SPARE_CLASSES`: a vertex-tree node with its count (64
/// bytes) and a block array with its header, of up to 32 trees (528 bytes; blocks have 16 ids
/// now, and `vtree` asserts that a full array has a class, `CountedSlice::spared`).
const SPARE_STEP: usize = 16;
const SPARE_CLASSES: usize = 34;

/// "No class": the allocation goes to the allocator.
const NONE: usize = usize::MAX;

/// The class of allocations of `l`, or `NONE`.
const fn spare_class(l: Layout) -> usize {
    if l.align() == 8
        && l.size().is_multiple_of(SPARE_STEP)
        && l.size() / SPARE_STEP < SPARE_CLASSES
    {
        l.size() / SPARE_STEP
    } else {
        NONE
    }
}

/// The least limit of a [`Spare`]'s free allocations (beyond its limit, frees go to the
/// allocator): more than a batch of 1e4 edges copies. Its owner raises the limit to what one
/// batch can free ([`Spare::limit_to`]). The vectors of their addresses come on top (8 bytes
/// an allocation, never shrunk: at most half as much again as the highest limit so far, were
/// every kept allocation of the smallest class, 16 bytes), and [`Spare::bytes`] counts them
/// too.
pub(crate) const SPARE_MIN_BYTES: usize = 4 << 20;

/// How many allocations ahead of the one handed out [`Spare`] starts loading (the lines are
/// written whole when used, but a store to a line not in the cache waits for it).
const SPARE_AHEAD: usize = 8;

/// Free allocations kept for the next ones, by a single writer (a line of versions:
/// [`super::VersionedGraph`]). Path copying a batch makes a node (and, for an updated block,
/// an array) per node it replaces, and settling the replaced version frees as many: the
/// allocator threads each free block onto a list through its first word, and the next
/// allocation loads that word to find the block after, a miss per allocation (a fifth of a
/// 1000-edge batch's time, in `_mi_page_malloc`). A spare keeps the addresses apart, in a
/// vector per size: taking one reads only the vector, and the block `SPARE_AHEAD` on is asked
/// for before it is needed.
///
/// In use on a thread while [`Spare::with`] runs there: [`Counted::new`] and
/// [`CountedSlice::from_fn`] take from it, and a freed `Counted` or `CountedSlice` of a class
/// it keeps returns its allocation to it. What other threads allocate or free (the forks of
/// a large batch) goes to the allocator. Its memory is the store's: [`Spare::bytes`].
pub(crate) struct Spare {
    free: [Vec<NonNull<u8>>; SPARE_CLASSES],
    /// Bytes of the allocations in `free`.
    held: usize,
    /// Bytes of allocations kept at most.
    limit: usize,
    /// Bytes of the allocations of its classes freed while in use since [`Spare::freed`] was
    /// last asked, kept or not.
    freed: usize,
}

impl Default for Spare {
    fn default() -> Self {
        Spare {
            free: std::array::from_fn(|_| Vec::new()),
            held: 0,
            limit: SPARE_MIN_BYTES,
            freed: 0,
        }
    }
}

// SAFETY: the pointers are free allocations the spare owns (no value lives in them), which any
// thread may use or free.
unsafe impl Send for Spare {}
// SAFETY: shared, a `Spare` is only read (its sizes).
unsafe impl Sync for Spare {}

thread_local! {
    /// The spare in use on this thread (null: none).
    static IN_USE: Cell<*mut Spare> = const { Cell::new(std::ptr::null_mut()) };
}

impl Spare {
    /// Run `f` with this spare in use on the current thread (nested uses restore the outer
    /// one when they end, unwinding or not).
    pub(crate) fn with<R>(&mut self, f: impl FnOnce() -> R) -> R {
        struct Restore(*mut Spare);
        impl Drop for Restore {
            fn drop(&mut self) {
                IN_USE.set(self.0);
            }
        }
        let _restore = Restore(IN_USE.replace(self as *mut Spare));
        f()
    }

    /// Bytes of the allocations of its classes freed while it was in use (kept or given to the
    /// allocator) since the last call: what a batch's settling gave back.
    pub(crate) fn freed(&mut self) -> usize {
        std::mem::take(&mut self.freed)
    }

    /// Keep at most `bytes` of free allocations (never less than [`SPARE_MIN_BYTES`]), freeing
    /// what is held beyond it now.
    pub(crate) fn limit_to(&mut self, bytes: usize) {
        self.limit = bytes.max(SPARE_MIN_BYTES);
        for (class, free) in self.free.iter_mut().enumerate().rev() {
            while self.held > self.limit {
                let Some(p) = free.pop() else { break };
                self.held -= class * SPARE_STEP;
                // SAFETY: a free allocation of this class, taken out of the spare.
                unsafe { free_class(p, class) };
            }
        }
    }

    /// Bytes held: the free allocations and the vectors of their addresses.
    pub(crate) fn bytes(&self) -> usize {
        self.held
            + self
                .free
                .iter()
                .map(|v| v.capacity() * std::mem::size_of::<NonNull<u8>>())
                .sum::<usize>()
    }
}

impl Drop for Spare {
    fn drop(&mut self) {
        for (class, free) in self.free.iter_mut().enumerate() {
            for p in free.drain(..) {
                // SAFETY: a free allocation of this class, taken out of the spare.
                unsafe { free_class(p, class) };
            }
        }
    }
}

/// Give the free allocation `p` of class `class` back to the allocator.
///
/// # Safety
/// `p` is a free allocation of the class's layout (size `class * SPARE_STEP`, align 8, the
/// layouts `spare_class` admits) that nothing else owns.
unsafe fn free_class(p: NonNull<u8>, class: usize) {
    let layout = Layout::from_size_align(class * SPARE_STEP, 8).expect("a class's layout");
    std::alloc::dealloc(p.as_ptr(), layout);
}

/// An allocation of class `class` from the spare in use on this thread, if any.
#[inline(always)]
fn spare_take(class: usize) -> Option<NonNull<u8>> {
    let s = IN_USE.get();
    if s.is_null() {
        return None;
    }
    // SAFETY: the spare `Spare::with` is running with, borrowed mutably for that run; only
    // this thread reaches it, and not reentrantly (nothing here calls out).
    let s = unsafe { &mut *s };
    let free = &mut s.free[class];
    let p = free.pop()?;
    s.held -= class * SPARE_STEP;
    if let Some(i) = free.len().checked_sub(SPARE_AHEAD) {
        let q = free[i].as_ptr();
        for off in (0..class * SPARE_STEP).step_by(64) {
            prefetch(q.wrapping_add(off));
        }
    }
    Some(p)
}

/// Give the free allocation `p` (of class `class`) to the spare in use on this thread, if any
/// has room: false if not (the caller frees it).
#[inline(always)]
fn spare_put(p: NonNull<u8>, class: usize) -> bool {
    let s = IN_USE.get();
    if s.is_null() {
        return false;
    }
    // SAFETY: as in `spare_take`; the push may allocate, which does not reach the spare.
    let s = unsafe { &mut *s };
    let bytes = class * SPARE_STEP;
    s.freed += bytes;
    if s.held + bytes > s.limit {
        return false;
    }
    s.free[class].push(p);
    s.held += bytes;
    true
}

#[cfg(test)]
mod tests {
    use super::{Counted, CountedSlice, Spare};
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

    /// A value with a vertex-tree node's layout, so that its allocations go to a spare.
    type NodeSized = [u64; 7];

    fn node(x: u64) -> Counted<NodeSized> {
        Counted::new([x; 7])
    }

    /// Free allocations of a node's size in `s`.
    fn nodes(s: &Spare) -> usize {
        s.free[4].len()
    }

    #[test]
    fn a_counted_slice_counts_drops_and_edits_like_counted() {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut a = CountedSlice::from_fn(5, |i| (i, Probe(drops.clone())));
        assert_eq!(a.iter().map(|x| x.0).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
        CountedSlice::get_mut(&mut a).unwrap()[2].0 = 7;
        let b = a.clone();
        assert_eq!(CountedSlice::count(&a), 2);
        assert!(CountedSlice::get_mut(&mut a).is_none());
        assert_eq!(CountedSlice::as_ptr(&a), b.as_ptr());
        assert_eq!(b[2].0, 7);
        drop(a);
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        drop(b);
        assert_eq!(drops.load(Ordering::SeqCst), 5);
        let e = CountedSlice::<u64>::from_fn(0, |_| unreachable!());
        assert!(e.is_empty());
    }

    #[test]
    fn a_spare_keeps_slices_by_size() {
        let mut spare = Spare::default();
        spare.with(|| {
            // 16 + 3·16 = 64 bytes: a node's class; 16 + 5·16 = 96: another.
            let a = CountedSlice::from_fn(3, |i| [i as u64; 2]);
            let b = CountedSlice::from_fn(5, |i| [i as u64; 2]);
            let (pa, pb) = (CountedSlice::as_ptr(&a), CountedSlice::as_ptr(&b));
            drop((a, b));
            assert_eq!((spare_len(4), spare_len(6)), (1, 1));
            let n = node(1);
            assert_eq!(
                Counted::as_ptr(&n) as *const u8,
                CountedSlice::count_ptr(pa).wrapping_add(8)
            );
            let c = CountedSlice::from_fn(5, |i| [i as u64 + 1; 2]);
            assert_eq!(CountedSlice::as_ptr(&c), pb);
            assert_eq!(c[4], [5, 5]);
            // 16 + 40·16 bytes: larger than the classes, to the allocator.
            drop(CountedSlice::from_fn(40, |i| [i as u64; 2]));
            assert_eq!((spare_len(4), spare_len(6)), (0, 0));
            drop((n, c));
        });
        assert_eq!(spare.held, 64 + 96);
    }

    /// Free allocations of class `c` in the spare in use.
    fn spare_len(c: usize) -> usize {
        // SAFETY (test): called inside `Spare::with`, with no other access meanwhile.
        unsafe { (*super::IN_USE.get()).free[c].len() }
    }

    #[test]
    fn a_spare_hands_back_what_was_freed_in_it() {
        const { assert!(Counted::<NodeSized>::CLASS == 4 && Counted::<[u64; 2]>::CLASS == super::NONE) };
        let mut spare = Spare::default();
        let (a, b) = spare.with(|| {
            let a = node(1);
            let pa = Counted::as_ptr(&a);
            // Freed by the last owner's drop, and by `try_unwrap`.
            drop(a);
            let b = node(2);
            assert_eq!(Counted::as_ptr(&b), pa, "the freed allocation is reused");
            assert_eq!(*b, [2; 7]);
            let pb = Counted::as_ptr(&b);
            assert_eq!(Counted::try_unwrap(b).ok(), Some([2u64; 7]));
            let c = node(3);
            assert_eq!(Counted::as_ptr(&c), pb);
            (c, node(4))
        });
        assert_eq!(nodes(&spare), 0);
        assert_eq!((*a, *b), ([3; 7], [4; 7]));
        // Outside `with`, frees go to the allocator.
        drop((a, b));
        assert_eq!(nodes(&spare), 0);
        spare.with(|| drop(node(5)));
        assert_eq!(nodes(&spare), 1);
        assert_eq!(spare.bytes(), 64 + spare.free[4].capacity() * 8);
    }

    #[test]
    fn a_spare_drops_each_value_once_and_is_left_on_unwind() {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut spare = Spare::default();
        spare.with(|| {
            // A `Probe` beside padding to the node layout: its allocation is spared.
            let a = Counted::new((Probe(drops.clone()), [0u64; 6]));
            let b = a.clone();
            drop(a);
            assert_eq!(drops.load(Ordering::SeqCst), 0);
            drop(b);
        });
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        assert_eq!(nodes(&spare), 1);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            spare.with(|| {
                // Taken from the spare, and dropped by the unwinding while it is in use.
                let _held = (node(1), node(2));
                panic!("inside")
            });
        }));
        assert!(r.is_err());
        assert!(
            super::IN_USE.get().is_null(),
            "the spare is no longer in use"
        );
        assert_eq!(nodes(&spare), 2, "the unwinding's frees went to the spare");
        let mut inner = Spare::default();
        spare.with(|| {
            inner.with(|| drop(node(0)));
            // Takes the outer spare's last allocation and gives it back; then two at once.
            drop((node(0), node(0)));
            let (x, y) = (node(0), node(0));
            drop((x, y));
            // A nested use that unwinds leaves the outer one in use.
            let outer = super::IN_USE.get();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                inner.with(|| {
                    let _held = node(3);
                    panic!("nested")
                })
            }));
            assert!(r.is_err());
            assert_eq!(
                super::IN_USE.get(),
                outer,
                "the outer spare is in use again"
            );
            drop(node(4));
        });
        assert_eq!((nodes(&spare), nodes(&inner)), (2, 1));
    }

    #[test]
    fn a_spare_keeps_at_most_its_limit() {
        let mut spare = Spare::default();
        spare.with(|| {
            let max = super::SPARE_MIN_BYTES / 64;
            let v: Vec<_> = (0..max + 10).map(|i| node(i as u64)).collect();
            drop(v);
        });
        assert_eq!(nodes(&spare), super::SPARE_MIN_BYTES / 64);
        assert_eq!(spare.held, super::SPARE_MIN_BYTES);
        // Every free counts as freed, the ten beyond the limit too; asking resets it.
        assert_eq!(spare.freed(), super::SPARE_MIN_BYTES + 10 * 64);
        assert_eq!(spare.freed(), 0);
        // A raised limit keeps more; lowering it frees the excess at once, and no limit is
        // below the minimum.
        let max = 2 * super::SPARE_MIN_BYTES / 64;
        spare.limit_to(2 * super::SPARE_MIN_BYTES);
        spare.with(|| {
            let v: Vec<_> = (0..max + 10).map(|i| node(i as u64)).collect();
            drop(v);
        });
        assert_eq!(nodes(&spare), max);
        spare.limit_to(super::SPARE_MIN_BYTES + 64);
        assert_eq!(spare.held, super::SPARE_MIN_BYTES + 64);
        assert_eq!(nodes(&spare), super::SPARE_MIN_BYTES / 64 + 1);
        spare.limit_to(0);
        assert_eq!(spare.held, super::SPARE_MIN_BYTES);
        // Trimming frees the largest class first, then goes on to smaller ones: two more nodes
        // and four 96-byte slices (class 6) on top, then a limit 128 bytes below what is held
        // takes two slices and keeps every node, and a limit of 64 bytes over the minimum takes
        // the other two slices and one node.
        let m = super::SPARE_MIN_BYTES;
        spare.limit_to(m + 128 + 4 * 96);
        // Made outside the spare (made inside, they would take its nodes).
        let extra = ((node(0), node(1)), (0..4).map(slice5).collect::<Vec<_>>());
        spare.with(|| drop(extra));
        assert_eq!((nodes(&spare), spare.free[6].len()), (m / 64 + 2, 4));
        assert_eq!(spare.held, m + 128 + 4 * 96);
        spare.limit_to(m + 4 * 96);
        assert_eq!((nodes(&spare), spare.free[6].len()), (m / 64 + 2, 2));
        assert_eq!(spare.held, m + 128 + 2 * 96);
        spare.limit_to(m + 64);
        assert_eq!((nodes(&spare), spare.free[6].len()), (m / 64 + 1, 0));
        assert_eq!(spare.held, m + 64);
    }

    /// A block-array-like slice of 96 bytes with its header (class 6).
    fn slice5(x: u64) -> CountedSlice<[u64; 2]> {
        CountedSlice::from_fn(5, |i| [x + i as u64; 2])
    }

    #[test]
    fn a_vertex_tree_node_is_one_line() {
        type Inner = super::Inner<crate::ctree::vtree::VNode<()>>;
        assert_eq!(std::mem::size_of::<Inner>(), 64);
    }
}
