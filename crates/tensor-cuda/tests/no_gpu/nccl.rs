//! NCCL (the `nccl` feature) on any machine: without its library, making a group is an
//! error naming what was looked for, never a panic of the bindings.

use tensor_cuda::nccl::new_group_id;

#[test]
fn a_missing_nccl_is_an_error_naming_the_library() {
    // SAFETY: this only tries to open the library by its candidate names.
    let present = unsafe { tensor_cuda::cudarc::nccl::sys::is_culib_present() };
    match new_group_id() {
        Ok(_) => assert!(present, "an id was made without NCCL's library"),
        Err(e) if !present => {
            let e = e.to_string();
            assert!(
                e.contains("NCCL was not found") && e.contains("libnccl.so"),
                "{e}"
            );
        }
        // With the library there, a machine without a GPU may still refuse, in a message.
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}
