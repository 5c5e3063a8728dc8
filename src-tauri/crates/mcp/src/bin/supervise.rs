//! The shell-command supervisor as a binary of its own, for this crate's tests of sandboxed
//! servers (the app runs its own executable in this role). See `tollgate_tools::supervisor`.

fn main() {
    tollgate_tools::supervisor::main_for_tests()
}
