//! Display-safe text: sanitizing untrusted strings before they reach the terminal, measuring and
//! cutting them per grapheme cluster, and the short time, age and path formats the views show.
//!
//! Nothing here knows about ratatui; widths follow the rules ratatui's buffer uses when it draws
//! a grapheme, so what [`width`] reports is what the screen shows.

use std::borrow::Cow;
use std::path::{MAIN_SEPARATOR, Path};

use chrono::{Datelike, Local, TimeZone, Timelike};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// The mark a cut string ends with.
pub const ELLIPSIS: char = '…';

/// What [`sanitize`] does with one character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fix {
    Keep,
    /// Shown as one space: controls, bidi controls, separators, hidden tag text.
    Space,
    /// Dropped: zero-width characters with no rendering role whose width terminals disagree on.
    Drop,
}

/// The byte length of the first `chars` characters of `text` (all of it when it is shorter).
/// The characters are counted 16 bytes at a time (the bytes that start one) up to the chunk where
/// the last of them ends, then one by one from the start of the character that chunk starts in.
pub fn char_end(text: &str, chars: usize) -> usize {
    if text.len() <= chars {
        return text.len();
    }
    let mut left = chars;
    let mut at = 0;
    for chunk in text.as_bytes().as_chunks::<16>().0 {
        // Every byte but a UTF-8 continuation byte (`0b10xx_xxxx`) starts a character.
        let starts = chunk.iter().filter(|&&b| (b as i8) >= -0x40).count();
        if starts > left {
            break;
        }
        left -= starts;
        at += 16;
    }
    if !text.is_char_boundary(at) {
        // The character `at` is inside was counted: take it again from its start.
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        left += 1;
    }
    text[at..].char_indices().nth(left).map_or(text.len(), |(i, _)| at + i)
}

/// Make `text` safe to draw on one line.
///
/// Every C0 control (including `\n`, `\t`, `\r`, ESC, BEL, `\b`, NUL, `\f`, `\v`), DEL and every
/// C1 control (U+0080–U+009F), every bidi control (U+061C, U+200E/F, U+202A–U+202E,
/// U+2066–U+2069), the line and paragraph separators U+2028/U+2029, the deprecated format
/// controls U+206A–U+206F, the interlinear annotation marks U+FFF9–U+FFFB and tag characters
/// (U+E0000–U+E007F) outside an emoji flag sequence become one space each, so an escape sequence
/// such as `\x1b[31m` shows as ` [31m`, as pi's picker shows it. The invisible zero-width
/// characters U+200B, U+2060–U+2064, U+FEFF and U+180E are dropped. Runs of spaces are kept;
/// see [`one_line`] for the collapsed form. Returns the input unchanged when nothing needed fixing.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    let Some((start, flag_before)) = first_fix(text) else {
        return Cow::Borrowed(text);
    };
    let mut in_flag = flag_before;
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start]);
    for c in text[start..].chars() {
        match fix_for(c, &mut in_flag) {
            Fix::Keep => out.push(c),
            Fix::Space => out.push(' '),
            Fix::Drop => {}
        }
    }
    Cow::Owned(out)
}

/// Where the first character [`sanitize`] changes starts, and whether an emoji tag sequence is
/// open before it. Runs of printable ASCII, kept as they are, are skipped 16 bytes at a time.
fn first_fix(text: &str) -> Option<(usize, bool)> {
    let mut in_flag = false;
    let mut at = 0;
    while at < text.len() {
        let run = printable_ascii_run(&text.as_bytes()[at..]);
        if run > 0 {
            // An ASCII character ends any tag sequence.
            in_flag = false;
            at += run;
            continue;
        }
        let c = text[at..].chars().next()?;
        let flag_before = in_flag;
        if fix_for(c, &mut in_flag) != Fix::Keep {
            return Some((at, flag_before));
        }
        at += c.len_utf8();
    }
    None
}

/// How many bytes at the start of `bytes` are printable ASCII (space to `~`).
fn printable_ascii_run(bytes: &[u8]) -> usize {
    let printable = |b: &u8| b.wrapping_sub(b' ') < 0x5f;
    let (chunks, _) = bytes.as_chunks::<16>();
    // `fold` rather than `all`: no early exit, so a chunk is tested in a few vector instructions.
    let whole = chunks.iter().take_while(|chunk| chunk.iter().fold(true, |ok, b| ok & printable(b))).count();
    let rest = &bytes[whole * 16..];
    whole * 16 + rest.iter().position(|b| !printable(b)).unwrap_or(rest.len())
}

/// Sanitize `text`, collapse every run of whitespace to one space and trim both ends: the form
/// used for one-line row texts (pi's `normalize`, without its control-character leaks).
pub fn one_line(text: &str) -> String {
    let clean = sanitize(text);
    let mut out = String::with_capacity(clean.len());
    for word in clean.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Decide what to do with `c`. `in_flag` tracks whether we are inside an emoji tag sequence
/// (U+1F3F4 followed by tag characters, e.g. the flag of Scotland), where tags are legitimate.
fn fix_for(c: char, in_flag: &mut bool) -> Fix {
    let is_tag = ('\u{E0000}'..='\u{E007F}').contains(&c);
    let fix = match c {
        _ if c.is_control() => Fix::Space,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
            Fix::Space
        }
        '\u{2028}' | '\u{2029}' | '\u{206A}'..='\u{206F}' | '\u{FFF9}'..='\u{FFFB}' => Fix::Space,
        '\u{200B}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{180E}' => Fix::Drop,
        '\u{E0020}'..='\u{E007F}' if *in_flag => Fix::Keep,
        _ if is_tag => Fix::Space,
        _ => Fix::Keep,
    };
    *in_flag = c == '\u{1F3F4}' || (*in_flag && is_tag && c != '\u{E007F}');
    fix
}

/// The number of terminal columns `text` takes, summed per grapheme cluster: CJK, emoji, ZWJ
/// sequences, flags and emoji with VS16 take 2; combining marks add nothing. A cluster holding a
/// control character counts 0 (ratatui does not draw it; [`sanitize`] first).
pub fn width(text: &str) -> usize {
    if text.is_ascii() && !text.bytes().any(|b| b.is_ascii_control()) {
        return text.len();
    }
    text.graphemes(true).map(grapheme_width).sum()
}

/// The columns one grapheme cluster takes, as ratatui's buffer measures it.
fn grapheme_width(grapheme: &str) -> usize {
    if grapheme.chars().any(char::is_control) {
        return 0;
    }
    if grapheme.len() == 1 {
        return 1;
    }
    // Halfwidth (semi-)voiced sound marks are `Grapheme_Extend` yet terminals give each a cell.
    let sound_marks = grapheme.chars().filter(|&c| c == '\u{FF9E}' || c == '\u{FF9F}').count();
    grapheme.width() + sound_marks
}

/// The longest prefix of `text` that fits in `max_cols` columns, cut between grapheme clusters.
pub fn take_cols(text: &str, max_cols: usize) -> &str {
    let mut used = 0;
    for (at, grapheme) in text.grapheme_indices(true) {
        used += grapheme_width(grapheme);
        if used > max_cols {
            return &text[..at];
        }
    }
    text
}

/// The rows `text` takes at `cols` columns (at most `max_rows` of them), as byte ranges of it:
/// each row ends after the last word that fits, and the spaces a row breaks on start no row; a
/// word wider than a row is broken where the row is full (never inside a grapheme). A text's
/// leading indent stays on its first row. An empty text is one empty row.
pub fn wrap_rows(text: &str, cols: usize, max_rows: usize) -> Vec<std::ops::Range<usize>> {
    let cols = cols.max(1);
    let mut rows = Vec::new();
    let mut start = 0;
    while rows.len() < max_rows {
        let rest = &text[start..];
        let fits = take_cols(rest, cols).len();
        if fits == rest.len() {
            rows.push(start..text.len());
            break;
        }
        let end = match word_break(rest, fits) {
            Some(at) => at,
            // Not even one grapheme fits (a wide one in a one-column row): it takes the row.
            None if fits == 0 => rest.graphemes(true).next().map_or(rest.len(), str::len),
            None => fits,
        };
        rows.push(start..start + end);
        start += end + rest[end..].len() - rest[end..].trim_start_matches(' ').len();
        if start == text.len() {
            break;
        }
    }
    rows
}

/// Where a row of `rest` whose first `fits` bytes fit should end so that no word is split: before
/// the spaces at `fits` when a space follows, else before the last spaces in it, as long as a
/// word comes before them (not only the leading indent). `None` when there is no such place.
fn word_break(rest: &str, fits: usize) -> Option<usize> {
    let indent = rest.len() - rest.trim_start_matches(' ').len();
    let head = &rest[..fits];
    let at = if rest[fits..].starts_with(' ') { fits } else { head.rfind(' ')? };
    Some(head[..at].trim_end_matches(' ').len()).filter(|&end| end > indent)
}

/// `text` cut to at most `max_cols` columns, ending in `…` when something was cut. Never splits
/// a grapheme cluster and never exceeds `max_cols` (a wide character that does not fit before
/// the `…` is left out, so the result may be one column narrower).
pub fn truncate(text: &str, max_cols: usize) -> Cow<'_, str> {
    if width(text) <= max_cols {
        return Cow::Borrowed(text);
    }
    if max_cols == 0 {
        return Cow::Borrowed("");
    }
    let mut cut = take_cols(text, max_cols - 1).to_owned();
    cut.push(ELLIPSIS);
    Cow::Owned(cut)
}

/// `text` cut from the start to at most `max_cols` columns, beginning with `…` when something was
/// cut (for paths, whose end says the most).
pub fn truncate_start(text: &str, max_cols: usize) -> Cow<'_, str> {
    let w = width(text);
    if w <= max_cols {
        return Cow::Borrowed(text);
    }
    if max_cols == 0 {
        return Cow::Borrowed("");
    }
    let mut cut = String::from(ELLIPSIS);
    cut.push_str(&skip_cols(text, w - (max_cols - 1)));
    Cow::Owned(cut)
}

/// `text` made exactly `cols` columns wide: cut with [`truncate`] when too wide, then padded with
/// spaces on the right.
pub fn pad_to(text: &str, cols: usize) -> String {
    let cut = truncate(text, cols);
    let fill = cols - width(&cut);
    let mut out = String::with_capacity(cut.len() + fill);
    out.push_str(&cut);
    out.extend(std::iter::repeat_n(' ', fill));
    out
}

/// `text` with its first `cols` columns removed, for horizontal panning. A wide grapheme cut in
/// half becomes spaces for its visible part, so the columns after it stay where they were.
pub fn skip_cols(text: &str, cols: usize) -> Cow<'_, str> {
    if cols == 0 {
        return Cow::Borrowed(text);
    }
    let mut used = 0;
    for (at, grapheme) in text.grapheme_indices(true) {
        if used >= cols {
            return Cow::Borrowed(&text[at..]);
        }
        used += grapheme_width(grapheme);
        if used > cols {
            let rest = &text[at + grapheme.len()..];
            return Cow::Owned(" ".repeat(used - cols) + rest);
        }
    }
    Cow::Borrowed("")
}

/// How long ago `modified_ms` was, as pi's picker shows it: `now` under a minute, then `Nm`,
/// `Nh`, `Nd`, `⌊d/7⌋w` under 30 days, `⌊d/30⌋mo` under 365 days, else `⌊d/365⌋y`.
/// A time in the future shows as `now`.
pub fn format_age(modified_ms: i64, now_ms: i64) -> String {
    const MINUTE: i64 = 60_000;
    let elapsed = now_ms.saturating_sub(modified_ms);
    let minutes = elapsed.div_euclid(MINUTE);
    let hours = minutes / 60;
    let days = hours / 24;
    match () {
        _ if minutes < 1 => "now".to_owned(),
        _ if minutes < 60 => format!("{minutes}m"),
        _ if hours < 24 => format!("{hours}h"),
        _ if days < 7 => format!("{days}d"),
        _ if days < 30 => format!("{}w", days / 7),
        _ if days < 365 => format!("{}mo", days / 30),
        _ => format!("{}y", days / 365),
    }
}

/// A label's time as pi's tree shows it, in the time zone `tz`: `HH:MM` when it is today,
/// `M/D HH:MM` when it is this year, else `YY/M/D HH:MM`. Empty for an unrepresentable time.
pub fn format_label_time<Tz: TimeZone>(ts_ms: i64, now_ms: i64, tz: &Tz) -> String {
    let (Some(at), Some(now)) =
        (tz.timestamp_millis_opt(ts_ms).single(), tz.timestamp_millis_opt(now_ms).single())
    else {
        return String::new();
    };
    let time = format!("{:02}:{:02}", at.hour(), at.minute());
    if at.date_naive() == now.date_naive() {
        time
    } else if at.year() == now.year() {
        format!("{}/{} {time}", at.month(), at.day())
    } else {
        format!("{:02}/{}/{} {time}", at.year().rem_euclid(100), at.month(), at.day())
    }
}

/// [`format_label_time`] in the local time zone.
pub fn format_label_time_local(ts_ms: i64, now_ms: i64) -> String {
    format_label_time(ts_ms, now_ms, &Local)
}

/// `path` for display, with the `home` prefix shown as `~` (whole path components only) and
/// sanitized, since a path may contain any character.
pub fn abbreviate_home(path: &Path, home: Option<&Path>) -> String {
    let rest = home.filter(|home| home.parent().is_some()).and_then(|home| path.strip_prefix(home).ok());
    let shown = match rest {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
        Some(rest) => format!("~{MAIN_SEPARATOR}{}", rest.display()),
        None => path.display().to_string(),
    };
    sanitize(&shown).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::FixedOffset;
    use std::path::PathBuf;

    /// No character that can move the cursor, change modes or reorder text survives.
    fn assert_safe(text: &str) {
        for c in text.chars() {
            assert!(!c.is_control(), "control {c:?} survived in {text:?}");
            assert!(
                !matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{2028}' | '\u{2029}'),
                "bidi or separator {c:?} survived in {text:?}"
            );
        }
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(sanitize("plain text ✅ 中文"), Cow::Borrowed(_)));
        assert!(matches!(sanitize(""), Cow::Borrowed(_)));
    }

    #[test]
    fn every_c0_control_and_del_become_spaces() {
        for b in (0u8..0x20).chain([0x7f]) {
            let text = format!("a{}b", b as char);
            assert_eq!(sanitize(&text), "a b", "byte {b:#x}");
        }
    }

    #[test]
    fn c1_controls_become_spaces() {
        assert_eq!(sanitize("a\u{9b}31mb"), "a 31mb");
        assert_eq!(sanitize("x\u{85}y\u{80}z\u{9f}"), "x y z ");
    }

    #[test]
    fn ansi_sgr_keeps_its_text_but_loses_esc() {
        let shown = sanitize("\x1b[31mred\x1b[0m");
        assert_eq!(shown, " [31mred [0m");
        assert_safe(&shown);
    }

    #[test]
    fn osc_sequences_lose_esc_bel_and_st() {
        let osc52 = sanitize("\x1b]52;c;ZWNobyBwd25lZAo=\x07after");
        assert_eq!(osc52, " ]52;c;ZWNobyBwd25lZAo= after");
        let osc8 = sanitize("\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\");
        assert_eq!(osc8, " ]8;;https://x.test \\link ]8;; \\");
        assert_safe(&osc52);
        assert_safe(&osc8);
    }

    #[test]
    fn screen_controls_and_progress_bars_are_defused() {
        let text = "\x1b[2J\x1b[?1049h\x1b[?25l10%\r50%\r\x08\x00\x0c\x0b\tend";
        let shown = sanitize(text);
        assert_safe(&shown);
        assert_eq!(shown.chars().count(), text.chars().count());
        assert!(shown.ends_with("  end"));
    }

    #[test]
    fn bidi_controls_and_separators_become_spaces() {
        assert_eq!(sanitize("abc\u{202E}fed\u{202C}"), "abc fed ");
        assert_eq!(sanitize("\u{2066}x\u{2069}\u{200F}\u{061C}"), " x   ");
        assert_eq!(sanitize("one\u{2028}two\u{2029}three"), "one two three");
    }

    #[test]
    fn invisible_zero_width_characters_are_dropped() {
        assert_eq!(sanitize("zero\u{200B}width\u{FEFF}bom\u{2060}wj"), "zerowidthbomwj");
    }

    #[test]
    fn joiners_variation_selectors_and_flags_survive() {
        for text in [
            "👩\u{200D}👩\u{200D}👧",
            "❤\u{FE0F}",
            "🇺🇳",
            "می\u{200C}خواهم",
            "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
        ] {
            assert!(matches!(sanitize(text), Cow::Borrowed(_)), "{text:?}");
        }
    }

    #[test]
    fn tag_characters_outside_a_flag_become_spaces() {
        assert_eq!(sanitize("hi\u{E0041}\u{E0042}"), "hi  ");
        let flag_then_tags = "🏴\u{E0067}\u{E007F}\u{E0041}";
        assert_eq!(sanitize(flag_then_tags), "🏴\u{E0067}\u{E007F} ", "a cancel tag ends the flag");
    }

    proptest::proptest! {
        #[test]
        fn skipping_ascii_runs_fixes_what_a_walk_over_every_character_fixes(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", " ", "~", "\x7f", "\x1b", "\n", "\u{85}", "é", "日本", "\u{202E}", "\u{200B}",
                    "🏴", "\u{E0067}", "\u{E007F}", "\u{E0041}", "0123456789abcdef", "✨",
                ]),
                0..40,
            ),
        ) {
            let text = pieces.concat();
            let mut in_flag = false;
            let walked: String = text
                .chars()
                .filter_map(|c| match fix_for(c, &mut in_flag) {
                    Fix::Keep => Some(c),
                    Fix::Space => Some(' '),
                    Fix::Drop => None,
                })
                .collect();
            proptest::prop_assert_eq!(sanitize(&text), walked);
        }
    }

    proptest::proptest! {
        #[test]
        fn char_end_is_where_the_characters_end(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["a", "é", "日", "🏴", "0123456789abcdef"]),
                0..60,
            ),
            chars in 0usize..120,
        ) {
            let text = pieces.concat();
            let walked = text.char_indices().nth(chars).map_or(text.len(), |(at, _)| at);
            proptest::prop_assert_eq!(char_end(&text, chars), walked);
        }
    }

    #[test]
    fn one_line_collapses_and_trims() {
        assert_eq!(one_line("  a\n\n  b\tc\r\n "), "a b c");
        assert_eq!(one_line("\x1b[1mbold\x1b[0m"), "[1mbold [0m");
        assert_eq!(one_line("\n\t"), "");
        assert_eq!(one_line("会话 🚀 \u{202E}RTL\u{202C}"), "会话 🚀 RTL");
    }

    #[test]
    fn width_counts_columns_per_grapheme() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width(""), 0);
        assert_eq!(width("中文"), 4);
        assert_eq!(width("한국어"), 6);
        assert_eq!(width("Ａ"), 2, "fullwidth form");
    }

    #[test]
    fn width_of_emoji_sequences_is_two() {
        assert_eq!(width("👩\u{200D}👩\u{200D}👧\u{200D}👦"), 2, "ZWJ family");
        assert_eq!(width("🧑\u{200D}🤝\u{200D}🧑"), 2);
        assert_eq!(width("👩🏽\u{200D}🚀"), 2, "skin tone inside a ZWJ sequence");
        assert_eq!(width("🇺🇳"), 2, "flag");
        assert_eq!(width("❤\u{FE0F}"), 2, "VS16");
        assert_eq!(width("🚀x"), 3);
    }

    #[test]
    fn combining_marks_and_zalgo_add_nothing() {
        assert_eq!(width("e\u{301}"), 1);
        assert_eq!(width("é"), 1);
        let zalgo = "Z\u{335}\u{321}\u{322}\u{327}a\u{334}\u{30d}\u{31a}l\u{336}\u{31b}g\u{337}o\u{338}";
        assert_eq!(width(zalgo), 5);
    }

    #[test]
    fn width_agrees_with_what_ratatui_draws() {
        use ratatui::buffer::CellWidth;
        let samples = "a中ｶﾞﾟ👩\u{200D}👩\u{200D}👧🇺🇳❤\u{FE0F}e\u{301}क्षि한ก้าΑ\u{AD}🏴\u{E0067}\u{E007F}";
        for grapheme in samples.graphemes(true) {
            assert_eq!(grapheme_width(grapheme), usize::from(grapheme.cell_width()), "{grapheme:?}");
        }
    }

    #[test]
    fn controls_take_no_width() {
        assert_eq!(width("a\x1bb"), 2);
        assert_eq!(width("\r\n"), 0);
    }

    #[test]
    fn truncate_leaves_short_text_alone() {
        assert!(matches!(truncate("hello", 5), Cow::Borrowed("hello")));
        assert_eq!(truncate("", 0), "");
    }

    #[test]
    fn truncate_cuts_with_an_ellipsis_within_the_limit() {
        assert_eq!(truncate("hello world", 8), "hello w…");
        assert_eq!(truncate("hello", 1), "…");
        assert_eq!(truncate("hello", 0), "");
        assert_eq!(truncate("中文字符", 5), "中文…");
        assert_eq!(truncate("中文字符", 4), "中…", "a wide char that would overflow is left out");
        for max in 0..12 {
            assert!(width(&truncate("中文 and 🇺🇳 e\u{301}", max)) <= max);
        }
    }

    #[test]
    fn truncate_never_splits_a_grapheme() {
        let family = "👩\u{200D}👩\u{200D}👧";
        assert_eq!(truncate(&format!("{family}{family}"), 3), format!("{family}…"));
        assert_eq!(truncate("e\u{301}e\u{301}e\u{301}", 2), "e\u{301}…");
        assert_eq!(truncate("🇺🇳🇺🇳", 3), "🇺🇳…");
    }

    fn rows(text: &str, cols: usize) -> Vec<&str> {
        wrap_rows(text, cols, usize::MAX).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn wrap_rows_break_between_words() {
        assert_eq!(rows("the quick brown fox", 10), ["the quick", "brown fox"]);
        assert_eq!(rows("the quick brown fox", 9), ["the quick", "brown fox"]);
        assert_eq!(rows("one  two", 4), ["one", "two"]);
        assert_eq!(rows("fits exactly", 12), ["fits exactly"]);
        assert_eq!(rows("", 5), [""]);
        assert_eq!(rows("trailing   ", 8), ["trailing"]);
    }

    #[test]
    fn wrap_rows_break_a_word_wider_than_a_row_where_the_row_is_full() {
        assert_eq!(rows("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(
            rows("see https://example.com/a/long/path", 12),
            ["see", "https://exam", "ple.com/a/lo", "ng/path"]
        );
        assert_eq!(rows("中文字", 3), ["中", "文", "字"]);
        assert_eq!(rows("中", 1), ["中"]);
    }

    #[test]
    fn wrap_rows_keep_the_indent_on_the_first_row() {
        assert_eq!(rows("    let value = 1;", 10), ["    let", "value = 1;"]);
        assert_eq!(rows("      verylongword", 10), ["      very", "longword"]);
    }

    #[test]
    fn wrap_rows_stop_at_the_rows_asked_for_and_never_overflow() {
        assert_eq!(wrap_rows("a b c d e f", 1, 3), [0..1, 2..3, 4..5]);
        for text in ["word ".repeat(40), "🌳🌳 x 🇫🇷 ab".repeat(9), "中文 字 ab".repeat(7)] {
            for cols in 1..12 {
                for row in rows(&text, cols) {
                    assert!(width(row) <= cols.max(2), "{row:?} at {cols}");
                    assert!(!row.starts_with(' '), "{row:?} at {cols}");
                }
            }
        }
    }

    #[test]
    fn take_cols_cuts_without_a_mark() {
        assert_eq!(take_cols("中文", 3), "中");
        assert_eq!(take_cols("abc", 10), "abc");
        assert_eq!(take_cols("abc", 0), "");
    }

    #[test]
    fn pad_to_is_exactly_as_wide_as_asked() {
        assert_eq!(pad_to("ab", 4), "ab  ");
        assert_eq!(pad_to("abcdef", 4), "abc…");
        assert_eq!(pad_to("中文字", 5), "中文…");
        assert_eq!(pad_to("中文字", 4), "中… ");
        assert_eq!(pad_to("x", 0), "");
    }

    #[test]
    fn skip_cols_pans_by_columns() {
        assert!(matches!(skip_cols("abc", 0), Cow::Borrowed("abc")));
        assert_eq!(skip_cols("abcdef", 2), "cdef");
        assert_eq!(skip_cols("abc", 3), "");
        assert_eq!(skip_cols("abc", 9), "");
        assert_eq!(skip_cols("中文x", 2), "文x");
        assert_eq!(skip_cols("中文x", 1), " 文x", "the visible half of a wide char is a space");
        assert_eq!(width(&skip_cols("中文x", 1)), width("中文x") - 1);
        assert_eq!(skip_cols("e\u{301}bc", 1), "bc");
    }

    #[test]
    fn age_follows_pi_thresholds() {
        let now = 1_750_000_000_000;
        let ago = |ms: i64| format_age(now - ms, now);
        let (min, hour, day) = (60_000, 3_600_000, 86_400_000);
        assert_eq!(ago(0), "now");
        assert_eq!(ago(59_999), "now");
        assert_eq!(ago(90_000), "1m");
        assert_eq!(ago(59 * min), "59m");
        assert_eq!(ago(60 * min), "1h");
        assert_eq!(ago(3 * hour), "3h");
        assert_eq!(ago(23 * hour + 59 * min), "23h");
        assert_eq!(ago(day), "1d");
        assert_eq!(ago(6 * day), "6d");
        assert_eq!(ago(7 * day), "1w");
        assert_eq!(ago(10 * day), "1w");
        assert_eq!(ago(29 * day), "4w");
        assert_eq!(ago(30 * day), "1mo");
        assert_eq!(ago(45 * day), "1mo");
        assert_eq!(ago(364 * day), "12mo");
        assert_eq!(ago(365 * day), "1y");
        assert_eq!(ago(400 * day), "1y");
        assert_eq!(ago(800 * day), "2y");
    }

    #[test]
    fn age_in_the_future_is_now() {
        assert_eq!(format_age(2_000_000, 1_000_000), "now");
        assert_eq!(format_age(i64::MAX, i64::MIN), "now");
    }

    fn ms(tz: &FixedOffset, y: i32, mo: u32, d: u32, h: u32, mi: u32) -> i64 {
        tz.with_ymd_and_hms(y, mo, d, h, mi, 0).unwrap().timestamp_millis()
    }

    #[test]
    fn label_time_today_this_year_and_older() {
        let tz = FixedOffset::east_opt(2 * 3600).unwrap();
        let now = ms(&tz, 2026, 3, 28, 18, 0);
        assert_eq!(format_label_time(ms(&tz, 2026, 3, 28, 14, 32), now, &tz), "14:32");
        assert_eq!(format_label_time(ms(&tz, 2026, 3, 28, 0, 5), now, &tz), "00:05");
        assert_eq!(format_label_time(ms(&tz, 2026, 3, 27, 14, 32), now, &tz), "3/27 14:32");
        assert_eq!(format_label_time(ms(&tz, 2026, 1, 2, 9, 7), now, &tz), "1/2 09:07");
        assert_eq!(format_label_time(ms(&tz, 2025, 12, 31, 23, 59), now, &tz), "25/12/31 23:59");
        assert_eq!(format_label_time(ms(&tz, 2005, 6, 1, 8, 0), now, &tz), "05/6/1 08:00");
    }

    #[test]
    fn label_time_uses_the_given_zone_for_day_boundaries() {
        let utc = FixedOffset::east_opt(0).unwrap();
        let tokyo = FixedOffset::east_opt(9 * 3600).unwrap();
        let label = ms(&utc, 2026, 3, 28, 14, 32);
        let now = ms(&utc, 2026, 3, 28, 16, 0);
        assert_eq!(format_label_time(label, now, &utc), "14:32");
        assert_eq!(format_label_time(label, now, &tokyo), "3/28 23:32");
        assert_eq!(format_label_time(i64::MAX, now, &utc), "");
    }

    #[test]
    fn label_time_local_matches_the_local_zone() {
        let now = chrono::Utc::now().timestamp_millis();
        assert_eq!(format_label_time_local(now, now), format_label_time(now, now, &Local));
    }

    #[test]
    fn home_is_abbreviated_by_whole_components() {
        let home = PathBuf::from("/home/dev");
        let abbrev = |p: &str| abbreviate_home(Path::new(p), Some(&home));
        assert_eq!(abbrev("/home/dev"), "~");
        assert_eq!(abbrev("/home/dev/alpha/x.jsonl"), format!("~{MAIN_SEPARATOR}alpha/x.jsonl"));
        assert_eq!(abbrev("/home/devx/alpha"), "/home/devx/alpha");
        assert_eq!(abbrev("/srv/c:odd dir"), "/srv/c:odd dir");
        assert_eq!(abbreviate_home(Path::new("/home/dev/a"), None), "/home/dev/a");
        assert_eq!(
            abbreviate_home(Path::new("/a"), Some(Path::new("/"))),
            "/a",
            "a root home is not abbreviated"
        );
    }

    #[test]
    fn abbreviated_paths_are_sanitized() {
        let home = PathBuf::from("/home/dev");
        let shown = abbreviate_home(Path::new("/home/dev/\x1b[31mred\u{202E}"), Some(&home));
        assert_safe(&shown);
        assert!(shown.starts_with('~'));
    }
}
