//! The JSON answers of the service, in the shapes symbfile's upload API defines: success
//! `{"success": true, "status": 200}`; failure `{"success": false, "uuid": …, "error":
//! {"Code": …, "Text": …}, "status": …}` with the HTTP status of the answer.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// What went wrong, with the stable `error.Code` clients can match on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// 400: a header, a body or a query that is not what the API takes.
    BadRequest,
    /// 401: no key, or a key the service does not know.
    Unauthorized,
    /// 403: a known key without the role the endpoint needs, or an open service asked
    /// from another machine.
    Forbidden,
    /// 404: no symbols for that FileID.
    NotFound,
    /// 409: a part that disagrees with the parts already received.
    Conflict,
    /// 413: a body over the limit.
    TooLarge,
    /// 503: the store cannot be reached, or the service is at its limit of concurrent
    /// uploads; try again later.
    Unavailable,
    /// 500: anything else.
    Internal,
}

impl Failure {
    /// The HTTP status.
    pub fn status(self) -> StatusCode {
        match self {
            Failure::BadRequest => StatusCode::BAD_REQUEST,
            Failure::Unauthorized => StatusCode::UNAUTHORIZED,
            Failure::Forbidden => StatusCode::FORBIDDEN,
            Failure::NotFound => StatusCode::NOT_FOUND,
            Failure::Conflict => StatusCode::CONFLICT,
            Failure::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Failure::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            Failure::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The `error.Code` string (the API's one published example is `"1000"`).
    pub fn code(self) -> &'static str {
        match self {
            Failure::BadRequest => "1000",
            Failure::Unauthorized => "1001",
            Failure::Forbidden => "1002",
            Failure::NotFound => "1003",
            Failure::Conflict => "1004",
            Failure::TooLarge => "1005",
            Failure::Unavailable => "1006",
            Failure::Internal => "1007",
        }
    }
}

/// A failed request: its kind and the text for `error.Text`.
#[derive(Debug)]
pub struct Refused {
    /// The kind.
    pub failure: Failure,
    /// What was wrong, naming the header, field or part.
    pub text: String,
}

impl Refused {
    /// A refusal of `failure` saying `text`.
    pub fn new(failure: Failure, text: impl Into<String>) -> Self {
        Refused {
            failure,
            text: text.into(),
        }
    }

    /// The `error` object of the answer: `{"Code": …, "Text": …}`.
    pub fn error(&self) -> serde_json::Value {
        json!({ "Code": self.failure.code(), "Text": self.text })
    }

    /// The answer, with the request's `uuid`.
    pub fn answer(&self, uuid: &str) -> Response {
        let status = self.failure.status();
        let body = json!({
            "success": false,
            "uuid": uuid,
            "error": self.error(),
            "status": status.as_u16(),
        });
        (status, Json(body)).into_response()
    }
}

/// `400` with `text`.
pub fn bad_request(text: impl Into<String>) -> Refused {
    Refused::new(Failure::BadRequest, text)
}

/// The success answer of an upload.
pub fn success() -> Response {
    Json(json!({ "success": true, "status": 200 })).into_response()
}
