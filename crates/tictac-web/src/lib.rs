//! tictac's engine for the static site's pages (dist/site.sh), compiled to
//! `wasm32-unknown-unknown`: the calls `tictac serve`'s API answers (`run`,
//! `state`), answered here on plain data (`api`; the modes run through the
//! command line's own pipeline, `tictac-run`), and the module's exports,
//! a small glue of our own (docs/DECISIONS.md): the input and output
//! buffers are Rust's, JavaScript (engine.js beside this crate) writes the
//! request and the trace into the first and reads the answer from the
//! second. `unsafe` is denied, and allowed on the export items alone: an
//! exported symbol is unmangled, which the compiler counts as unsafe. No
//! pointer is ever dereferenced here; JavaScript writes through the
//! addresses these functions give, into `Vec`s of the length asked for.
#![deny(unsafe_code)]

pub mod api;
pub mod state;

use std::cell::RefCell;

use api::{Answer, Call};

/// The buffers JavaScript writes to and reads from.
#[derive(Default)]
struct Buffers {
    /// The request's JSON (0) and the trace's bytes (1).
    input: [Vec<u8>; 2],
    answer: Answer,
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::default();
}

/// Makes input buffer `which` (0 the request's JSON, 1 the trace) `len`
/// bytes long, zeroed, and answers its address, for JavaScript to fill.
#[allow(unsafe_code)]
#[unsafe(no_mangle)]
pub extern "C" fn tictac_input(which: u32, len: u32) -> *mut u8 {
    BUFFERS.with_borrow_mut(|b| {
        let buffer = &mut b.input[usize::from(which == 1)];
        buffer.clear();
        buffer.resize(len as usize, 0);
        buffer.as_mut_ptr()
    })
}

/// Runs call `kind` (0 run, 1 state, 2 version) on the input buffers:
/// answers 0 for a reply, 1 for a refused request (its JSON says why).
#[allow(unsafe_code)]
#[unsafe(no_mangle)]
pub extern "C" fn tictac_call(kind: u32) -> u32 {
    BUFFERS.with_borrow_mut(|b| {
        b.answer = match Call::numbered(kind) {
            Some(call) => api::answer(call, &b.input[0], &b.input[1]),
            None => Answer::refusal(format!("no call numbered {kind}")),
        };
        u32::from(!b.answer.ok)
    })
}

/// The address of the answer's JSON (0) or of the bytes printed (1).
#[allow(unsafe_code)]
#[unsafe(no_mangle)]
pub extern "C" fn tictac_output(which: u32) -> *const u8 {
    BUFFERS.with_borrow(|b| b.answer.part(which).as_ptr())
}

/// The length of the answer's JSON (0) or of the bytes printed (1).
#[allow(unsafe_code)]
#[unsafe(no_mangle)]
pub extern "C" fn tictac_output_len(which: u32) -> u32 {
    // (An answer is at most `api::OUTPUT_LIMIT` and its JSON: well within.)
    BUFFERS.with_borrow(|b| u32::try_from(b.answer.part(which).len()).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What JavaScript does: fill the input buffers, call, read the answer.
    fn call(kind: u32, request: &[u8], trace: &[u8]) -> (u32, Vec<u8>, Vec<u8>) {
        for (which, bytes) in [(0, request), (1, trace)] {
            let len = u32::try_from(bytes.len()).expect("small");
            tictac_input(which, len);
            BUFFERS.with_borrow_mut(|b| b.input[which as usize].copy_from_slice(bytes));
        }
        let refused = tictac_call(kind);
        let part = |which| BUFFERS.with_borrow(|b| b.answer.part(which).to_vec());
        assert_eq!(tictac_output_len(0) as usize, part(0).len());
        (refused, part(0), part(1))
    }

    #[test]
    fn the_exports_answer_through_the_buffers() {
        let (refused, json, output) = call(0, br#"{"mode":"b"}"#, b"undo\r\n");
        assert_eq!((refused, json.as_slice()), (0, &br#"{"status":0}"#[..]));
        assert!(output.ends_with(b"->undo\n  ok:  => start new game\n  ___\n  ___\n  ___\n  0: score for \"\" (as X)\n  0: score for \"\" (as O)\n"));
        let (refused, json, _) = call(0, br#"{"mode":"w"}"#, b"");
        assert_eq!(refused, 1);
        assert!(
            String::from_utf8_lossy(&json)
                .starts_with(r#"{"error":"invalid request: unknown variant `w`"#)
        );
        let (refused, json, _) = call(2, b"{}", b"");
        assert_eq!(json, format!(r#"{{"version":"{}"}}"#, env!("CARGO_PKG_VERSION")).into_bytes());
        assert_eq!(refused, 0);
        assert_eq!(call(7, b"{}", b"").0, 1, "no such call");
    }
}
