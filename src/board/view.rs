//! Drawing the terminal board: the banner of the click-driven seed, the
//! grid, the transcript's status and score lines, and the buttons. Layout
//! is a pure function of the screen size, so clicks are hit-tested against
//! the same rectangles that were drawn.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::model::{Action, App, BUTTONS};
use crate::game::view::{banner, render};
use crate::game::{Board, Cell, Mark, Phase};

/// The smallest screen the board fits on.
pub(crate) const WIDTH: u16 = 72;
pub(crate) const HEIGHT: u16 = 24;

/// A cell of the grid is this wide and tall, inside the lines.
const CELL_W: u16 = 7;
const CELL_H: u16 = 3;
const GRID_W: u16 = 3 * CELL_W + 4;
const GRID_H: u16 = 3 * CELL_H + 4;

/// Where everything is on a screen of a given size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Areas {
    pub(crate) title: Rect,
    pub(crate) banner: Rect,
    pub(crate) grid: Rect,
    /// The inside of each cell, cell 1 first.
    pub cells: [Rect; 9],
    pub(crate) status: Rect,
    pub(crate) last: Rect,
    pub buttons: Vec<(Rect, Action)>,
    pub(crate) help: Rect,
}

/// The layout for a screen, or `None` when the screen is too small.
pub fn areas(screen: Rect) -> Option<Areas> {
    if screen.width < WIDTH || screen.height < HEIGHT {
        return None;
    }
    let left = screen.x + (screen.width - WIDTH) / 2;
    let top = screen.y + (screen.height - HEIGHT) / 2;
    let row = |y: u16, h: u16| Rect::new(left, top + y, WIDTH, h);
    let grid = Rect::new(left + (WIDTH - GRID_W) / 2, top + 4, GRID_W, GRID_H);
    let cells = std::array::from_fn(|k| {
        let (r, c) = (k as u16 / 3, k as u16 % 3);
        Rect::new(grid.x + 1 + c * (CELL_W + 1), grid.y + 1 + r * (CELL_H + 1), CELL_W, CELL_H)
    });
    let mut buttons = Vec::new();
    let mut x = left;
    for (action, key, label) in BUTTONS {
        let width = button_text(key, label).chars().count() as u16;
        buttons.push((Rect::new(x, top + 22, width, 1), action));
        x += width + 2;
    }
    Some(Areas {
        title: row(0, 1),
        banner: row(2, 1),
        grid,
        cells,
        status: row(18, 3),
        last: row(21, 1),
        buttons,
        help: row(23, 1),
    })
}

/// The text as it fits in `width` columns: whole, or cut with `…` at the end.
fn fit(text: &str, width: u16) -> String {
    let width = usize::from(width);
    if Span::raw(text).width() <= width {
        return text.to_string();
    }
    let mut cut = String::new();
    let mut used = 1; // the `…`
    for c in text.chars() {
        let w = Span::raw(c.to_string()).width();
        if used + w > width {
            break;
        }
        used += w;
        cut.push(c);
    }
    cut.push('…');
    cut
}

fn button_text(key: char, label: &str) -> String {
    format!("[{key}] {label}")
}

/// What hides behind a click, if anything.
pub(crate) fn hit(screen: Rect, column: u16, row: u16) -> Option<Action> {
    let areas = areas(screen)?;
    let inside = |r: &Rect| r.contains(ratatui::layout::Position::new(column, row));
    if let Some(k) = areas.cells.iter().position(inside) {
        return Some(Action::Play(Cell::ALL[k]));
    }
    areas.buttons.iter().find(|(r, _)| inside(r)).map(|(_, a)| *a)
}

fn mark_style(mark: Mark) -> Style {
    let color = if mark == Mark::X { Color::Blue } else { Color::Green };
    Style::new().fg(color).add_modifier(Modifier::BOLD)
}

/// The grid as 13 lines of text: box lines, marks in colour, free cells
/// showing their number dimmed (the key that plays them).
fn grid_lines(board: &Board) -> Vec<Line<'static>> {
    let rule = |l: &str, m: &str, r: &str| {
        let bar = "─".repeat(CELL_W as usize);
        Line::from(format!("{l}{bar}{m}{bar}{m}{bar}{r}"))
    };
    let mut lines = vec![rule("┌", "┬", "┐")];
    for r in 0..3 {
        for h in 0..CELL_H {
            let mut spans = vec![Span::raw("│")];
            for c in 0..3 {
                let cell = Cell::ALL[r * 3 + c];
                let middle = h == CELL_H / 2;
                let span = match (board.get(cell), middle) {
                    (Some(mark), true) => {
                        Span::styled(format!("   {}   ", mark.letter() as char), mark_style(mark))
                    }
                    (None, true) => Span::styled(
                        format!("   {}   ", cell.number()),
                        Style::new().fg(Color::DarkGray),
                    ),
                    _ => Span::raw(" ".repeat(CELL_W as usize)),
                };
                spans.push(span);
                spans.push(Span::raw("│"));
            }
            lines.push(Line::from(spans));
        }
        lines.push(if r < 2 { rule("├", "┼", "┤") } else { rule("└", "┴", "┘") });
    }
    lines
}

pub(crate) fn draw(frame: &mut Frame, app: &App) {
    let screen = frame.area();
    let Some(a) = areas(screen) else {
        let text = format!(
            "The terminal is too small for the board: it needs {WIDTH}×{HEIGHT}, this one is {}×{}. \
             Make it larger, or press q to quit.",
            screen.width, screen.height
        );
        // Wrapped at words, the message may take a line more than its width says.
        let width = u16::try_from(Span::raw(&text).width()).unwrap_or(u16::MAX);
        let height = width.div_ceil(screen.width.max(1)).saturating_add(1);
        let message = Paragraph::new(text).centered().wrap(ratatui::widgets::Wrap { trim: true });
        let top = screen.y + screen.height.saturating_sub(height) / 2;
        frame.render_widget(
            message,
            Rect::new(screen.x, top, screen.width, height).intersection(screen),
        );
        return;
    };
    let game = app.engine().game();
    let bold = Style::new().add_modifier(Modifier::BOLD);
    frame.render_widget(
        Paragraph::new("tictac: the ETF tic-tac-toe oracle").style(bold).centered(),
        a.title,
    );
    frame.render_widget(Paragraph::new(banner(game)).style(bold).centered(), a.banner);
    frame.render_widget(Paragraph::new(grid_lines(&game.state.board)), a.grid);

    // The status and score lines exactly as the transcript prints them.
    let view = String::from_utf8_lossy(&render(game)).into_owned();
    let lines: Vec<Line> = view
        .lines()
        .enumerate()
        .filter(|(k, _)| [0, 4, 5].contains(k))
        .map(|(_, l)| Line::from(fit(l, a.status.width)))
        .collect();
    frame.render_widget(Paragraph::new(lines), a.status);

    if let Some(prompt) = &app.prompt {
        let who = if prompt.asking() == Mark::X { "X (moves first)" } else { "O" };
        let field = Line::from(vec![
            Span::styled(format!("Name of {who}: "), bold),
            Span::raw(prompt.text.clone()),
            Span::styled("▏", Style::new().add_modifier(Modifier::SLOW_BLINK)),
        ]);
        frame.render_widget(Paragraph::new(field), a.last);
        let help = match prompt.refused {
            Some(why) => Paragraph::new(format!("Not a name a trace can hold: {}", why.rule()))
                .style(Style::new().fg(Color::Red)),
            None => Paragraph::new("Enter confirms, Esc cancels")
                .style(Style::new().fg(Color::DarkGray)),
        };
        frame.render_widget(help, a.help);
    } else {
        if let Some(last) = &app.last {
            frame.render_widget(
                Paragraph::new(fit(last, a.last.width)).style(Style::new().fg(Color::DarkGray)),
                a.last,
            );
        }
        let help = match game.state.phase {
            Phase::NoGame => "Press n to start a new game",
            _ => "1-9 or a click plays a cell for the player to move",
        };
        frame.render_widget(Paragraph::new(help).style(Style::new().fg(Color::DarkGray)), a.help);
    }
    for ((rect, _), (_, key, label)) in a.buttons.iter().zip(BUTTONS) {
        frame.render_widget(
            Paragraph::new(button_text(key, label))
                .style(Style::new().add_modifier(Modifier::REVERSED)),
            *rect,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Driver;
    use crate::run::record::Recorder;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn screen_of(app: &App, width: u16, height: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
        terminal.draw(|f| draw(f, app)).expect("draw");
        let buffer = terminal.backend().buffer();
        let mut text = String::new();
        for y in 0..height {
            for x in 0..width {
                text.push_str(buffer[(x, y)].symbol());
            }
            text.push('\n');
        }
        text
    }

    fn app_after(keys: &str) -> App {
        let mut app = App::new(Driver::default(), Recorder::default());
        for c in keys.chars() {
            let code = if c == '\n' { KeyCode::Enter } else { KeyCode::Char(c) };
            app.key(KeyEvent::new(code, KeyModifiers::NONE)).expect("key");
        }
        app
    }

    #[test]
    fn no_game_yet() {
        let s = screen_of(&app_after(""), 80, 24);
        assert!(s.contains("start new game"), "{s}");
        assert!(s.contains("  ok:  => start new game"), "{s}");
        assert!(s.contains("[n] New game"), "{s}");
        assert!(s.contains("│   5   │"), "{s}");
    }

    #[test]
    fn in_play_shows_whose_turn_and_the_marks() {
        let s = screen_of(&app_after("nAnn\nBob\n5"), 80, 24);
        assert!(s.contains("o's turn"), "{s}");
        assert!(s.contains("│   X   │"), "{s}");
        assert!(s.contains("  ok: => Bob plays next"), "{s}");
        assert!(s.contains("  0: score for \"Ann\" (as X)"), "{s}");
        assert!(s.contains("->play(\"Ann\",5)"), "{s}");
    }

    #[test]
    fn won_tied_and_an_error_message() {
        let s = screen_of(&app_after("nAnn\nBob\n14253"), 80, 24);
        assert!(s.contains("x won"), "{s}");
        assert!(s.contains("there is a winner: => play again or start new game"), "{s}");
        assert!(s.contains("1: score for \"Ann\" (as X)"), "{s}");
        let s = screen_of(&app_after("nAnn\nBob\n123546879"), 80, 24);
        assert!(s.contains("cat got it"), "{s}");
        assert!(s.contains("game ended in a tie"), "{s}");
        let s = screen_of(&app_after("nAnn\nBob\n55"), 80, 24);
        assert!(s.contains("button already taken: => Bob plays next"), "{s}");
        let s = screen_of(&app_after("nAnn\nBob\n1425"), 80, 24);
        assert!(s.contains("x's turn"), "{s}");
        let s = screen_of(&app_after("nAnn\nBob\n142596"), 80, 24);
        assert!(s.contains("o won"), "{s}");
    }

    #[test]
    fn the_name_field_asks_for_each_player() {
        let s = screen_of(&app_after("nAn"), 80, 24);
        assert!(s.contains("Name of X (moves first): An"), "{s}");
        let s = screen_of(&app_after("nAnn\nB"), 80, 24);
        assert!(s.contains("Name of O: B"), "{s}");
    }

    #[test]
    fn a_refused_name_says_why_on_a_narrow_board() {
        let s = screen_of(&app_after("nAnn\\\n"), 72, 24);
        assert!(s.contains("Name of X (moves first): Ann\\"), "{s}");
        assert!(
            s.contains("Not a name a trace can hold: a name may not end with a backslash"),
            "{s}"
        );
    }

    #[test]
    fn a_small_terminal_is_told_so_and_how_to_quit() {
        let s = screen_of(&app_after(""), 40, 10);
        assert!(s.contains("too small"), "{s}");
        assert!(s.contains("72×24"), "{s}");
        assert!(s.contains("press q to quit"), "{s}");
        assert!(s.lines().next().is_some_and(|l| l.trim().is_empty()), "centred:\n{s}");
    }

    #[test]
    fn the_footer_says_how_to_start_before_any_game() {
        assert!(screen_of(&app_after(""), 80, 24).contains("Press n to start a new game"));
        let s = screen_of(&app_after("nAnn\nBob\n"), 80, 24);
        assert!(s.contains("1-9 or a click plays"), "{s}");
    }

    #[test]
    fn long_names_are_cut_with_an_ellipsis() {
        let long = "A".repeat(100);
        let s = screen_of(&app_after(&format!("n{long}\nBob\n")), 72, 24);
        let score = s.lines().find(|l| l.contains("score for")).expect("a score line");
        assert!(score.trim_end().ends_with('…'), "{s}");
        assert_eq!(score.chars().count(), 72, "{s}");
        assert_eq!(fit("abc", 3), "abc");
        assert_eq!(fit("abcd", 3), "ab…");
        assert_eq!(fit("日本語", 4), "日…");
    }

    #[test]
    fn clicks_hit_cells_and_buttons() {
        let screen = Rect::new(0, 0, 80, 24);
        let a = areas(screen).expect("fits");
        let c5 = a.cells[4];
        assert_eq!(hit(screen, c5.x + 3, c5.y + 1), Some(Action::Play(Cell::ALL[4])));
        assert_eq!(hit(screen, a.grid.x, a.grid.y), None, "a grid line is no cell");
        let (undo, _) = a.buttons[3];
        assert_eq!(hit(screen, undo.x, undo.y), Some(Action::Undo));
        assert_eq!(hit(Rect::new(0, 0, 20, 5), 1, 1), None);
    }
}
