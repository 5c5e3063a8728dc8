//! The shell-command supervisor as a binary of its own, for this crate's write-policy tests
//! (the app runs its own executable in this role). See `tollgate_sandbox::supervisor`.

fn main() {
    tollgate_tools::supervisor::main_for_tests()
}
