//! The JSON requests of the API: their vocabulary (fields, what goes
//! together, the bots) is the static site's, defined once in
//! `tictac_web::api`; here a refusal becomes the API's 400 and the mode
//! the run's job.

use tictac_web::api::{self, RunRequest, StateRequest};

use super::error::ApiError;
use crate::bots::Autopilot;
use crate::run::Job;

/// A request refused, as the API answers it.
fn refused(why: String) -> ApiError {
    ApiError::BadRequest(why)
}

/// `POST /api/run`: its trace, the job to run and its bots, or why the
/// request is refused.
pub(crate) fn run(body: &[u8]) -> Result<(String, Job, Autopilot), ApiError> {
    let request: RunRequest = api::parse(body).map_err(refused)?;
    let (job, autopilot) = request.mode().map_err(refused)?;
    Ok((trace(request.trace)?, job, autopilot))
}

/// `POST /api/state`: its trace and the bots, or why it is refused.
pub(crate) fn state(body: &[u8]) -> Result<(String, Autopilot), ApiError> {
    let request: StateRequest = api::parse(body).map_err(refused)?;
    let autopilot = request.autopilot().map_err(refused)?;
    Ok((trace(request.trace)?, autopilot))
}

/// The API's requests carry their trace.
fn trace(trace: Option<String>) -> Result<String, ApiError> {
    trace.ok_or_else(|| refused("invalid request: missing field `trace`".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::UsageError;
    use crate::window::{Window, WindowEnd};

    fn job(json: &str) -> Result<Job, ApiError> {
        run(json.as_bytes()).map(|(_, job, _)| job)
    }

    fn refused(json: &str) -> String {
        match job(json) {
            Err(ApiError::BadRequest(message)) => message,
            other => panic!("{json}: {other:?}"),
        }
    }

    #[test]
    fn modes_and_windows() {
        assert_eq!(job(r#"{"trace": ""}"#), Ok(Job::Whole));
        assert_eq!(job(r#"{"trace": "", "mode": "chunks"}"#), Ok(Job::Chunks));
        let w = job(r#"{"trace": "", "mode": "window", "start": -1, "end": 0}"#);
        assert_eq!(w, Ok(Job::Window(Window::LAST)));
        let w = job(r#"{"trace": "", "mode": "window", "start": 2, "end": "_"}"#);
        assert_eq!(w, Ok(Job::Window(Window { start: 2, end: WindowEnd::Unbounded })));
    }

    #[test]
    fn what_is_refused_says_why() {
        assert!(refused(r#"{"trace": "", "mode": "w"}"#).contains("unknown variant `w`"));
        assert!(refused(r#"{"trace": 5}"#).contains("invalid type: integer `5`"));
        assert!(refused(r#"{"trace": "", "x": 1}"#).contains("unknown field `x`"));
        assert!(refused(r#"{"mode": "b"}"#).contains("missing field `trace`"));
        assert!(refused("{").starts_with("invalid request: "));
        assert!(refused(r#"{"trace": "", "start": 1}"#).contains("window mode only"));
        assert!(refused(r#"{"trace": "", "mode": "window", "start": 1}"#).contains("needs"));
        assert!(
            refused(r#"{"trace": "", "mode": "window", "start": 1, "end": "x"}"#)
                .contains("the end of window is neither")
        );
        assert!(
            refused(r#"{"trace": "", "mode": "window", "start": 1.5, "end": 2}"#)
                .contains("the start of window is not a valid integer")
        );
        assert!(
            refused(r#"{"trace": "", "mode": "window", "start": 3, "end": 2}"#)
                .contains("start <= end")
        );
        let bots = r#"{"trace": "", "mode": "window", "start": 1, "end": 2, "bots": {"H": "elm"}}"#;
        assert!(refused(bots).contains("bots play in the b and chunks modes only"));
        assert!(
            refused(r#"{"trace": "", "bots": {"Hal": "genius"}}"#)
                .contains("unknown strategy 'genius' for the bot 'Hal'")
        );
        assert!(refused(r#"{"trace": "", "seed": 3}"#).contains("give it with bots"));
        assert!(refused(r#"{"trace": "", "seed": -3, "bots": {}}"#).contains("invalid value"));
        // As the command line refuses `--bot Hal=elm --bot Hal=tla`.
        let twice = r#"{"trace": "", "bots": {"Hal": "elm", "Ann": "tla", "Hal": "tla"}}"#;
        assert_eq!(refused(twice), "Error: two bots are named 'Hal'");
        assert!(refused(r#"{"trace": "", "bots": []}"#).contains("an object of bot names"));
        for name in ["", "1x", " Hal", "_"] {
            let bots = serde_json::json!({"trace": "", "bots": {name: "elm"}}).to_string();
            let said = UsageError::BotCannotPlay(name.into()).to_string();
            assert_eq!(refused(&bots), said);
        }
    }
}
