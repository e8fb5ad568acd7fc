//! The trace language's checks as the core's callers see them: `lang::check`
//! on a text in memory and the names a trace file cannot hold.

use tictac::lang::{Unwritable, check, unwritable_name};

#[test]
fn a_parse_error_anywhere_wins_over_earlier_soft_errors() {
    let e = check(b"play(Ora, 1) undo(").expect_err("bad");
    assert_eq!(e.to_string().lines().nth(1), Some("parse error (Line 1, Column 19)"));
    let e = check(b"play(Ora, 1) jump").expect_err("bad");
    assert_eq!(e.to_string().lines().nth(1), Some("Unknown identifier Ora (Line 1, Column 6)"));
}

#[test]
fn a_name_ending_in_a_backslash_is_the_one_a_file_cannot_hold() {
    let commands = check(b"new_game(\"A\",\"B\") play(\"A\\\",1)").expect("valid");
    assert_eq!(unwritable_name(&commands), Some((&b"A\\"[..], Unwritable::TrailingBackslash)));
    let commands = check(b"new_game(\"A\\\"b\",\"B\") undo").expect("valid");
    assert_eq!(unwritable_name(&commands), None);
}

#[test]
fn an_empty_text_is_valid() {
    assert_eq!(check(b"  -- nothing"), Ok(Vec::new()));
}
