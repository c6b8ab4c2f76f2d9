//! A symbolization service for the push tests, on 127.0.0.1: it implements the documented
//! upload API (spec §9), checks the API key, records every request and answers the
//! statuses a test asks for.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request as the service saw it.
#[derive(Clone, Debug)]
pub struct Request {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct Service {
    pub url: String,
    pub requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

fn json_error(status: u16, code: &str, text: &str, uuid: &str) -> String {
    format!(
        r#"{{"success": false, "uuid": "{uuid}", "error": {{"Code": "{code}", "Text": "{text}"}}, "status": {status}}}"#
    )
}

impl Service {
    /// Starts the service. `statuses` are answered to the first accepted requests in
    /// order (e.g. `[503, 500]`); every later request gets 200. A wrong or missing key
    /// always gets 401.
    pub fn start(key: &str, statuses: Vec<u16>) -> Service {
        let server = tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1");
        let url = format!("http://{}", server.server_addr().to_ip().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let expected = format!("APIKey {key}");
        let (log, halt) = (requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut planned = statuses.into_iter();
            let mut n = 0;
            // Bounded: a test sends a few dozen requests at most.
            while !halt.load(Ordering::Relaxed) && n < 1000 {
                let Ok(Some(mut req)) = server.recv_timeout(Duration::from_millis(50)) else {
                    continue;
                };
                n += 1;
                let mut body = Vec::new();
                req.as_reader().read_to_end(&mut body).unwrap();
                let headers = req
                    .headers()
                    .iter()
                    .map(|h| (h.field.as_str().to_string(), h.value.as_str().to_string()))
                    .collect::<Vec<_>>();
                let record = Request {
                    path: req.url().to_string(),
                    headers,
                    body,
                };
                let known = ["/api/symbols-ranges", "/api/symbols-returnpads"];
                let (status, text) = if !known.contains(&record.path.as_str()) {
                    (404, json_error(404, "1004", "no such endpoint", "uuid-404"))
                } else if record.header("Authorization") != Some(expected.as_str()) {
                    (401, json_error(401, "1001", "invalid API key", "uuid-401"))
                } else if record.header("FileID").is_none()
                    || record.header("FilePart").is_none()
                    || record.header("FileParts").is_none()
                {
                    (400, json_error(400, "1002", "missing header", "uuid-400"))
                } else {
                    match planned.next() {
                        Some(s) if s != 200 => {
                            (s, json_error(s, "1000", "try again", &format!("uuid-{n}")))
                        }
                        _ => (200, r#"{"success": true, "status": 200}"#.to_string()),
                    }
                };
                log.lock().unwrap().push(record);
                let response = tiny_http::Response::from_string(text).with_status_code(status);
                let _ = req.respond(response);
            }
        });
        Service {
            url,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
