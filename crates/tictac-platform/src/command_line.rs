//! A command given as one argument (`--program "python3 'dan smith/t.py'"`)
//! split into the program and its arguments as this system's shell would:
//! POSIX quoting on Unix (shell-words), the `CommandLineToArgvW` rules on
//! Windows. Both rule sets are pure functions compiled everywhere, so both
//! are tested on any machine; `split` picks this system's, here only.

/// `text` as this system's shell splits it into words, or why it cannot.
pub fn split(text: &str) -> Result<Vec<String>, String> {
    #[cfg(windows)]
    {
        Ok(split_windows(text))
    }
    #[cfg(not(windows))]
    {
        split_posix(text)
    }
}

/// POSIX shell quoting: `'...'`, `"..."` and `\` escapes; an unclosed
/// quote is an error. Nothing is expanded (`$HOME`, `*`).
// Compiled everywhere so its tests run everywhere; used on Unix.
#[cfg_attr(windows, allow(dead_code))]
pub fn split_posix(text: &str) -> Result<Vec<String>, String> {
    shell_words::split(text).map_err(|_| {
        "a quote is not closed: quote as a POSIX shell does, \
         e.g. \"python3 'my folder/ttt.py'\""
            .to_string()
    })
}

/// The rules of Windows' `CommandLineToArgvW` (and the C runtime's): the
/// program name runs to the first space or tab outside double quotes, and
/// takes no escapes; in the arguments, `2n` backslashes then `"` are `n`
/// backslashes and a quote that opens or closes, `2n+1` of them are `n`
/// and a literal `"`, `""` inside quotes is a literal `"`, and other
/// backslashes are themselves. Any text splits (an open quote runs to the end).
// Compiled everywhere so its tests run everywhere; used on Windows.
#[cfg_attr(not(windows), allow(dead_code))]
pub fn split_windows(text: &str) -> Vec<String> {
    let is_blank = |c: char| c == ' ' || c == '\t';
    let mut words = Vec::new();
    let mut chars = text.trim_start_matches(is_blank).chars().peekable();
    // The program name.
    let mut word = String::new();
    let mut quoted = false;
    for c in chars.by_ref() {
        match c {
            '"' => quoted = !quoted,
            c if is_blank(c) && !quoted => break,
            c => word.push(c),
        }
    }
    if !word.is_empty() || text.trim_start_matches(is_blank).starts_with('"') {
        words.push(word);
    }
    // The arguments.
    loop {
        while chars.next_if(|&c| is_blank(c)).is_some() {}
        if chars.peek().is_none() {
            return words;
        }
        let mut word = String::new();
        let mut quoted = false;
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    let mut slashes = 1;
                    while chars.next_if_eq(&'\\').is_some() {
                        slashes += 1;
                    }
                    if chars.peek() == Some(&'"') {
                        word.extend(std::iter::repeat_n('\\', slashes / 2));
                        if slashes % 2 == 1 {
                            word.push('"');
                            chars.next();
                        }
                    } else {
                        word.extend(std::iter::repeat_n('\\', slashes));
                    }
                }
                '"' if quoted && chars.peek() == Some(&'"') => {
                    word.push('"');
                    chars.next();
                }
                '"' => quoted = !quoted,
                c if is_blank(c) && !quoted => break,
                c => word.push(c),
            }
        }
        words.push(word);
    }
}

/// `words` as one command line this system's shell would split back into
/// them (a word that is not UTF-8 is shown lossily), for messages.
pub fn join(words: &[std::ffi::OsString]) -> String {
    let words = words.iter().map(|w| w.to_string_lossy());
    #[cfg(windows)]
    let quote = quote_windows;
    #[cfg(not(windows))]
    let quote = |w: &str| shell_words::quote(w).into_owned();
    words.map(|w| quote(&w)).collect::<Vec<_>>().join(" ")
}

/// One word quoted so that `split_windows` reads it back (as an argument).
#[cfg_attr(not(windows), allow(dead_code))]
fn quote_windows(word: &str) -> String {
    if !word.is_empty() && !word.contains([' ', '\t', '"']) {
        return word.to_string();
    }
    let mut quoted = String::from('"');
    let mut slashes = 0;
    for c in word.chars() {
        match c {
            '\\' => slashes += 1,
            '"' => {
                quoted.extend(std::iter::repeat_n('\\', slashes + 1));
                slashes = 0;
            }
            _ => slashes = 0,
        }
        quoted.push(c);
    }
    quoted.extend(std::iter::repeat_n('\\', slashes));
    quoted.push('"');
    quoted
}

/// Whether `program` (the first word of a command) can be started, else
/// why not: found as this system finds programs (`process::runnable`).
pub fn locate(program: &str) -> Result<(), String> {
    super::process::runnable(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn posix_quotes_keep_spaces_in_a_word() {
        let split = |t: &str| split_posix(t).expect(t);
        assert_eq!(split("python3 ttt.py"), words(&["python3", "ttt.py"]));
        assert_eq!(split("python3 'dan smith/ttt.py'"), words(&["python3", "dan smith/ttt.py"]));
        assert_eq!(split("\"a b\" c\\ d  e"), words(&["a b", "c d", "e"]));
        assert_eq!(split("  x\t'' $HOME *"), words(&["x", "", "$HOME", "*"]));
        assert_eq!(split("it\\'s \"say \\\"hi\\\"\""), words(&["it's", "say \"hi\""]));
        assert_eq!(split("   "), Vec::<String>::new());
        for bad in ["python3 'dan", "a \"b"] {
            assert!(split_posix(bad).expect_err(bad).starts_with("a quote is not closed"));
        }
    }

    #[test]
    fn windows_rules_are_those_of_command_line_to_argv() {
        let split = split_windows;
        assert_eq!(split("python ttt.py"), words(&["python", "ttt.py"]));
        assert_eq!(
            split("\"C:\\Program Files\\Py\\python.exe\" \"dan smith\\t.py\" -x"),
            words(&["C:\\Program Files\\Py\\python.exe", "dan smith\\t.py", "-x"])
        );
        // The program name takes no escapes: its backslashes stay.
        assert_eq!(split("C:\\a\\\"b c\" d"), words(&["C:\\a\\b c", "d"]));
        // 2n backslashes and a quote: n backslashes, the quote delimits.
        assert_eq!(split("p a\\\\\"b c\""), words(&["p", "a\\b c"]));
        // 2n+1: n backslashes and a literal quote.
        assert_eq!(split("p a\\\\\\\"b"), words(&["p", "a\\\"b"]));
        // Backslashes not before a quote are themselves.
        assert_eq!(split("p a\\\\b\\ c"), words(&["p", "a\\\\b\\", "c"]));
        // `""` inside quotes is a literal quote; an empty quoted word counts.
        assert_eq!(split("p \"a\"\"b\" \"\""), words(&["p", "a\"b", ""]));
        assert_eq!(split("p \"open to the end"), words(&["p", "open to the end"]));
        assert_eq!(split(" \t "), Vec::<String>::new());
        assert_eq!(split("\"\" x"), words(&["", "x"]));
        // Single quotes mean nothing on Windows.
        assert_eq!(split("p 'a b'"), words(&["p", "'a", "b'"]));
    }

    #[test]
    fn a_joined_command_splits_back_into_its_words() {
        let cases = [&["python3", "dan smith/t.py", "-b", "it's"][..], &["a\\\"b\\", "", "c\td"]];
        for case in cases {
            let os: Vec<std::ffi::OsString> = case.iter().map(Into::into).collect();
            assert_eq!(split(&join(&os)).expect("splits"), words(case), "{}", join(&os));
            let quoted: Vec<String> = case.iter().map(|w| quote_windows(w)).collect();
            let windows = format!("p {}", quoted.join(" "));
            assert_eq!(split_windows(&windows)[1..], words(case), "{windows}");
        }
        let plain = ["python3", "t.py", "-b", "x.txt"].map(std::ffi::OsString::from);
        assert_eq!(join(&plain), "python3 t.py -b x.txt");
    }

    #[cfg(unix)]
    #[test]
    fn a_program_is_found_on_path_or_where_it_is_named() {
        assert_eq!(locate("sh"), Ok(()));
        let refused = |program: &str| locate(program).expect_err(program);
        assert_eq!(refused("no-such-program-on-path"), "not found on PATH");
        assert_eq!(refused("/no/such/program"), "no such file");
        let dir = tempfile::tempdir().expect("dir");
        let plain = dir.path().join("plain.sh");
        std::fs::write(&plain, "echo hi\n").expect("write");
        assert_eq!(refused(&plain.to_string_lossy()), "not an executable file");
        assert_eq!(refused(&dir.path().to_string_lossy()), "it is a folder, not a program");
        // A script whose interpreter is missing: the first line says which.
        use std::os::unix::fs::PermissionsExt;
        for (first, says) in [
            (
                "#!/bin/sh\r\n",
                "'/bin/sh\\r', which does not exist: the \\r is a Windows line ending",
            ),
            ("#! /no/such/python3 -u\n", "'/no/such/python3', which does not exist"),
            (
                "#!/usr/bin/env python3\r\n",
                "line, `#!/usr/bin/env python3`, ends in \\r: a Windows line ending",
            ),
        ] {
            std::fs::write(&plain, format!("{first}echo hi\n")).expect("write");
            std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
            let why = refused(&plain.to_string_lossy());
            assert!(why.starts_with("its first line") && why.contains(says), "{why}");
        }
        std::fs::write(&plain, "#!/bin/sh\necho hi\n").expect("write");
        assert_eq!(locate(&plain.to_string_lossy()), Ok(()));
        // A program built for another system, a Python file with no `#!`
        // line: said what it is, not left to /bin/sh (the tester's C8).
        let foreign = if cfg!(target_arch = "aarch64") { 62u16 } else { 183 };
        let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
        elf.resize(18, 0);
        elf.extend(foreign.to_le_bytes());
        // A 64-bit program for this machine whose one program header is
        // its PT_INTERP, naming `loader` (the tester's D3).
        let ours = if cfg!(target_arch = "aarch64") { 183u16 } else { 62 };
        let needing = |loader: &str| {
            let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
            elf.resize(16, 0);
            elf.extend([2u16, ours].iter().flat_map(|n| n.to_le_bytes())); // a program, ours
            elf.resize(0x20, 0);
            elf.extend(64u64.to_le_bytes()); // where the program headers are
            elf.resize(0x36, 0);
            elf.extend([56u16, 1].iter().flat_map(|n| n.to_le_bytes())); // each 56 bytes, one
            elf.resize(64, 0);
            elf.extend(3u32.to_le_bytes()); // PT_INTERP
            elf.resize(64 + 8, 0);
            elf.extend(120u64.to_le_bytes()); // its path's place
            elf.resize(64 + 32, 0);
            elf.extend((loader.len() as u64 + 1).to_le_bytes()); // and length
            elf.resize(120, 0);
            elf.extend(loader.bytes().chain([0]));
            elf
        };
        let mut fat = b"\xca\xfe\xba\xbe\x00\x00\x00\x02".to_vec();
        fat.resize(64, 0);
        for (name, bytes, says) in [
            (
                "ttt.exe",
                b"MZ\x90\x00".to_vec(),
                "it is a Windows program (.exe), which does not run",
            ),
            ("ttt.py", b"print(1)\n".to_vec(), "it has no `#!` line, so /bin/sh would run it"),
            ("ttt.PY", b"print(1)\n".to_vec(), "it has no `#!` line, so /bin/sh would run it"),
            ("ttt", b"echo hi\n".to_vec(), ""),
            (
                "bom.py",
                b"\xef\xbb\xbf#!/usr/bin/env python3\nprint(1)\n".to_vec(),
                "its first line begins with a UTF-8 byte order mark (the bytes EF BB BF",
            ),
            (
                "Main.class",
                b"\xca\xfe\xba\xbe\x00\x00\x00\x34\x00\x1d".to_vec(),
                "it is a Java class file, which only Java runs: name what runs it (`java -cp ",
            ),
        ]
        .into_iter()
        .chain(cfg!(target_os = "linux").then(|| ("tttarm", elf, "it is a Linux program for ")))
        .chain(cfg!(target_os = "linux").then(|| {
            ("tttmac", b"\xcf\xfa\xed\xfe\x0c".to_vec(), "it is a macOS program (Mach-O)")
        }))
        .chain(cfg!(target_os = "linux").then(|| ("tttfat", fat, "it is a macOS program (Mach-O)")))
        .chain(cfg!(target_os = "linux").then(|| {
            let says = "it is a Linux program that needs the loader /lib/ld-gone.so.9, which this \
                        system lacks: it was built on another system; build it";
            ("noldr", needing("/lib/ld-gone.so.9"), says)
        }))
        .chain(cfg!(target_os = "linux").then(|| {
            ("musl", needing("/lib/ld-musl-gone.so.1"), "it is a Linux program that needs")
        }))
        .chain(cfg!(target_os = "linux").then(|| ("ldr", needing("/bin/sh"), "")))
        {
            let at = dir.path().join(name);
            std::fs::write(&at, bytes).expect("write");
            std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o755)).expect("chmod");
            match locate(&at.to_string_lossy()) {
                Ok(()) => assert_eq!(says, "", "{name} is refused"),
                Err(why) => assert!(!says.is_empty() && why.starts_with(says), "{name}: {why}"),
            }
        }
        let python = locate(&dir.path().join("ttt.py").to_string_lossy()).expect_err("refused");
        assert!(
            python.ends_with("`#!/usr/bin/env python3`, or name what runs it (`python3 ./ttt.py`)"),
            "{python}"
        );
        let class = dir.path().join("Main.class");
        let java = locate(&class.to_string_lossy()).expect_err("refused");
        assert!(java.ends_with(&format!("(`java -cp {} Main`)", dir.path().display())), "{java}");
        if cfg!(target_os = "linux") {
            let musl = locate(&dir.path().join("musl").to_string_lossy()).expect_err("refused");
            assert!(musl.contains("built against musl (as on Alpine Linux)"), "{musl}");
        }
    }
}
