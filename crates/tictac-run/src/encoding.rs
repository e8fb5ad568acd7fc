//! Traces saved in an encoding other than plain UTF-8 (Notepad's "UTF-8
//! with BOM", Windows PowerShell 5.1's `>`, which writes UTF-16): read as
//! the bytes they hold, as the oracle reads them (a syntax error), and
//! named, with how to save them as plain UTF-8, where a person reads it.

use std::fmt;

/// An encoding a trace should not be in, found by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 that begins with a byte order mark (EF BB BF).
    Utf8Bom,
    /// UTF-16, little-endian or not, found by its byte order mark (FF FE,
    /// FE FF) or by the NUL bytes of ASCII text in it.
    Utf16 { little_endian: bool, by_bom: bool },
    /// UTF-32, found by its byte order mark (FF FE 00 00, 00 00 FE FF) or
    /// by the three NUL bytes of each ASCII letter in it.
    Utf32 { little_endian: bool, by_bom: bool },
}

/// Byte pairs of the start of a file looked at for UTF-16 without a BOM.
const PAIRS: usize = 64;

/// The bytes of a file's start that `Encoding::of` looks at, at most.
pub const LOOKED_AT: usize = 2 * PAIRS;

impl Encoding {
    /// The encoding `start` (the first bytes of a file) shows, if it is one
    /// of these. UTF-16 without a BOM is ASCII text with a NUL after
    /// (little-endian) or before (big-endian) each letter: the first pair
    /// shows it, and most of the first 64; UTF-32 without one, with three
    /// NULs, the first four bytes and most of the first 32 fours.
    pub fn of(start: &[u8]) -> Option<Encoding> {
        match start {
            [0xEF, 0xBB, 0xBF, ..] => return Some(Encoding::Utf8Bom),
            [0xFF, 0xFE, 0, 0, ..] => {
                return Some(Encoding::Utf32 { little_endian: true, by_bom: true });
            }
            [0, 0, 0xFE, 0xFF, ..] => {
                return Some(Encoding::Utf32 { little_endian: false, by_bom: true });
            }
            [0xFF, 0xFE, ..] => return Some(Encoding::Utf16 { little_endian: true, by_bom: true }),
            [0xFE, 0xFF, ..] => {
                return Some(Encoding::Utf16 { little_endian: false, by_bom: true });
            }
            _ => {}
        }
        let fours = || start.chunks_exact(4).take(PAIRS / 2);
        for little_endian in [true, false] {
            let letter = |four: &[u8]| match little_endian {
                true => four[0] != 0 && four[1..] == [0, 0, 0],
                false => four[..3] == [0, 0, 0] && four[3] != 0,
            };
            let shown = fours().filter(|four| letter(four)).count();
            if fours().next().is_some_and(letter) && shown * 4 >= fours().len() * 3 {
                return Some(Encoding::Utf32 { little_endian, by_bom: false });
            }
        }
        let pairs = || start.chunks_exact(2).take(PAIRS);
        let little_endian = match pairs().next()? {
            [a, 0] if *a != 0 => true,
            [0, b] if *b != 0 => false,
            _ => return None,
        };
        let k = usize::from(little_endian);
        let shown = pairs().filter(|p| p[k] == 0 && p[1 - k] != 0).count();
        (shown * 4 >= pairs().len() * 3).then_some(Encoding::Utf16 { little_endian, by_bom: false })
    }

    /// Whether the first bytes of a file, `start`, are to be read on before
    /// `of` is asked: they are the start of a UTF-8 byte order mark (text
    /// in UTF-8 sends the rest of such a lead byte anyway, so this never
    /// waits on a writer of text), a UTF-16 mark or two NULs that may be
    /// the start of a UTF-32 one (FF FE 00 00, 00 00 FE FF), three NULs (a
    /// letter of big-endian UTF-32), or a first pair of a letter and a NUL,
    /// whose next pairs (up to `LOOKED_AT` bytes) decide. A first byte
    /// alone is not waited on otherwise: a trace starting with a NUL or an
    /// FF or FE byte is answered (a parse error) without waiting for its
    /// writer, so a UTF-16 file whose first byte comes alone goes unnamed.
    pub fn undecided(start: &[u8]) -> bool {
        match start {
            _ if start.len() >= LOOKED_AT => false,
            [0xEF] | [0xEF, 0xBB] => true,
            [0xFF, 0xFE] | [0xFF, 0xFE, 0] | [0, 0] | [0, 0, 0xFE] | [0, 0, 0, ..] => true,
            [a, b, ..] => (*a == 0) != (*b == 0),
            _ => false,
        }
    }

    /// What to tell a person about trace `name`: what it is, and how to
    /// save it as plain UTF-8.
    pub fn hint(self, name: &str) -> String {
        let why =
            "it is read as the bytes it holds, as the ETF oracle reads it, hence the syntax error";
        self.said(name, why)
    }

    /// The same about expected output `name`.
    pub fn hint_expected(self, name: &str) -> String {
        self.said(name, "its bytes are expected as they are, which no ETF program prints")
    }

    fn said(self, name: &str, why: &str) -> String {
        format!("'{name}' {}", self.told(why))
    }

    /// What the file is, `why` that matters, and how to save it as plain
    /// UTF-8: the words after a file's name.
    pub fn told(self, why: &str) -> String {
        format!(
            "{self}: {why}; save it as plain UTF-8 (Notepad: File > Save as, Encoding \"UTF-8\", not \"UTF-8 with BOM\" or \"UTF-16\"; PowerShell 7: Get-Content OLD | Out-File -Encoding utf8 NEW; Windows PowerShell 5.1, whose utf8 adds a BOM and whose > writes UTF-16: Get-Content OLD | Set-Content NEW)"
        )
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (bits, little_endian, by_bom, nuls) = match *self {
            Encoding::Utf8Bom => {
                return f.write_str("begins with a UTF-8 byte order mark (EF BB BF)");
            }
            Encoding::Utf16 { little_endian, by_bom } => {
                (16, little_endian, by_bom, "the NUL byte")
            }
            Encoding::Utf32 { little_endian, by_bom } => {
                (32, little_endian, by_bom, "the three NUL bytes")
            }
        };
        let endian = if little_endian { "little" } else { "big" };
        write!(f, "is UTF-{bits} ({endian}-endian, by ")?;
        match by_bom {
            true => f.write_str("its byte order mark)"),
            false => write!(f, "{nuls} beside each of its letters)"),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `text` in UTF-16, little-endian or big-endian, without a mark.
    pub(crate) fn utf16(text: &str, little: bool) -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|u| if little { u.to_le_bytes() } else { u.to_be_bytes() })
            .collect()
    }

    #[test]
    fn boms_and_the_nuls_of_ascii_in_utf16_are_found() {
        let le = Encoding::Utf16 { little_endian: true, by_bom: false };
        let be = Encoding::Utf16 { little_endian: false, by_bom: false };
        assert_eq!(Encoding::of(b"\xEF\xBB\xBFundo\n"), Some(Encoding::Utf8Bom));
        let bom_le = [&[0xFF, 0xFE][..], &utf16("undo\r\n", true)].concat();
        assert_eq!(
            Encoding::of(&bom_le),
            Some(Encoding::Utf16 { little_endian: true, by_bom: true })
        );
        let bom_be = [&[0xFE, 0xFF][..], &utf16("undo", false)].concat();
        assert_eq!(
            Encoding::of(&bom_be),
            Some(Encoding::Utf16 { little_endian: false, by_bom: true })
        );
        assert_eq!(Encoding::of(&utf16("new_game(\"Zoë\",\"B\")\n", true)), Some(le));
        assert_eq!(Encoding::of(&utf16("undo\n", false)), Some(be));
        // Plain UTF-8, and a stray NUL or two, are none of these.
        for plain in [&b""[..], b"u", b"undo\n", "new_game(\"Zoë\",\"李\")".as_bytes()] {
            assert_eq!(Encoding::of(plain), None, "{plain:?}");
        }
        assert_eq!(Encoding::of(b"u\0ndo redo undo redo\n"), None);
        assert_eq!(Encoding::of(b"\0\0undo"), None);
    }

    #[test]
    fn utf32_is_named_utf32_not_utf16() {
        let le: Vec<u8> = "\u{FEFF}undo\n".chars().flat_map(|c| (c as u32).to_le_bytes()).collect();
        let be: Vec<u8> = "\u{FEFF}undo\n".chars().flat_map(|c| (c as u32).to_be_bytes()).collect();
        let utf32 = |little_endian, by_bom| Some(Encoding::Utf32 { little_endian, by_bom });
        assert_eq!(Encoding::of(&le), utf32(true, true));
        assert_eq!(Encoding::of(&be), utf32(false, true));
        // Without the mark (iconv -t UTF-32LE), by the NULs of each letter.
        let text = "new_game(\"Zoë\",\"李\")\nplay(\"Zoë\",5)\n";
        let bare_le: Vec<u8> = text.chars().flat_map(|c| (c as u32).to_le_bytes()).collect();
        let bare_be: Vec<u8> = text.chars().flat_map(|c| (c as u32).to_be_bytes()).collect();
        assert_eq!(Encoding::of(&bare_le), utf32(true, false));
        assert_eq!(Encoding::of(&bare_be), utf32(false, false));
        assert!(Encoding::undecided(&bare_be[..3]) && Encoding::undecided(&bare_be[..5]));
        let named = utf32(false, false).map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(
            named,
            "is UTF-32 (big-endian, by the three NUL bytes beside each of its letters)"
        );
        let hint = Encoding::Utf32 { little_endian: true, by_bom: true }.hint("u32.txt");
        assert!(hint.starts_with("'u32.txt' is UTF-32 (little-endian, by its byte order mark): "));
        // A pipe's first read may end inside the mark: the rest decides.
        for cut in 2..4 {
            assert!(Encoding::undecided(&le[..cut]) && Encoding::undecided(&be[..cut]), "{cut}");
        }
        assert!(!Encoding::undecided(&le[..4]) && !Encoding::undecided(&be[..4]));
    }

    /// Every encoding's words, each said in one place.
    #[test]
    fn each_encoding_is_named_by_its_width_its_order_and_how_it_was_found() {
        let named = |e: Encoding| e.to_string();
        let u16 = |little_endian, by_bom| named(Encoding::Utf16 { little_endian, by_bom });
        let u32 = |little_endian, by_bom| named(Encoding::Utf32 { little_endian, by_bom });
        assert_eq!(named(Encoding::Utf8Bom), "begins with a UTF-8 byte order mark (EF BB BF)");
        assert_eq!(u16(true, true), "is UTF-16 (little-endian, by its byte order mark)");
        assert_eq!(u16(false, true), "is UTF-16 (big-endian, by its byte order mark)");
        assert_eq!(
            u16(false, false),
            "is UTF-16 (big-endian, by the NUL byte beside each of its letters)"
        );
        assert_eq!(u32(false, true), "is UTF-32 (big-endian, by its byte order mark)");
        assert_eq!(
            u32(true, false),
            "is UTF-32 (little-endian, by the three NUL bytes beside each of its letters)"
        );
    }

    #[test]
    fn the_hint_names_the_encoding_and_how_to_save_plain_utf8() {
        let hint = Encoding::Utf8Bom.hint("t.txt");
        assert!(hint.starts_with("'t.txt' begins with a UTF-8 byte order mark (EF BB BF): it is read as the bytes it holds, "), "{hint}");
        assert!(hint.contains("Notepad: File > Save as, Encoding \"UTF-8\""), "{hint}");
        assert!(hint.contains("Out-File -Encoding utf8") && hint.contains("Set-Content"));
        let hint = Encoding::Utf16 { little_endian: true, by_bom: false }.hint("t.txt");
        assert!(
            hint.starts_with(
                "'t.txt' is UTF-16 (little-endian, by the NUL byte beside each of its letters): "
            ),
            "{hint}"
        );
        let hint = Encoding::Utf8Bom.hint_expected("t.expected.txt");
        assert!(hint.contains("(EF BB BF): its bytes are expected as they are, "), "{hint}");
    }
}
