//! The shell-command supervisor as a binary of its own, for this crate's attack tests (the app
//! runs its own executable in this role). See `tollgate_sandbox::supervisor`.

fn main() {
    tollgate_sandbox::supervisor::main_for_tests()
}
