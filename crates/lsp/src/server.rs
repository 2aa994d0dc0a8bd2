//! The message loop: documents kept in step with the editor, analysed when
//! their text has settled, and requests answered from the analysis.

use super::config::Config;
use super::document::{self, Document};
use super::features;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{notification, request, Uri};
use pomp_preview::Encoding;
use serde::Deserialize as _;
use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A line of the server's log, formatted as `format!` does.
macro_rules! log {
    ($server:expr, $($message:tt)*) => {
        $server.log(format_args!($($message)*))
    };
}

/// The custom requests, with the document's URI as their parameter.
pub const PREVIEW: &str = "pomp/preview";
pub const REGIONS: &str = "pomp/regions";
/// The command behind the code action "Show instrumented source".
pub const SHOW_INSTRUMENTED: &str = "pomp.showInstrumentedSource";

pub struct Server<'c> {
    connection: &'c Connection,
    encoding: Encoding,
    config: Config,
    documents: HashMap<Uri, Document>,
    /// Documents changed since their diagnostics were published.
    changed: HashMap<Uri, Pending>,
    /// When each open document was last changed, published or not.
    last_changes: HashMap<Uri, Instant>,
    /// The client answers `workspace/configuration`.
    pulls_configuration: bool,
    shows_documents: bool,
    next_request: i32,
    /// Requests sent to the client, by id, with what they were for.
    sent: HashMap<RequestId, &'static str>,
    /// Where instrumented text shown to the user is written.
    shown: Option<tempfile::TempDir>,
    shutting_down: bool,
    /// Where the server's own log goes (editors show a language server's
    /// standard error as its log).
    log: std::cell::RefCell<&'c mut (dyn std::io::Write + Send)>,
}

impl<'c> Server<'c> {
    pub fn new(
        connection: &'c Connection,
        initialize: &lsp_types::InitializeParams,
        encoding: Encoding,
        log: &'c mut (dyn std::io::Write + Send),
    ) -> Server<'c> {
        let capabilities = &initialize.capabilities;
        let (config, errors) = match &initialize.initialization_options {
            Some(settings) => Config::from_settings(settings),
            None => (Config::default(), vec![]),
        };
        let server = Server {
            connection,
            encoding,
            config,
            documents: HashMap::new(),
            changed: HashMap::new(),
            last_changes: HashMap::new(),
            pulls_configuration: capabilities
                .workspace
                .as_ref()
                .and_then(|w| w.configuration)
                .unwrap_or(false),
            shows_documents: capabilities
                .window
                .as_ref()
                .and_then(|w| w.show_document.as_ref())
                .is_some_and(|s| s.support),
            next_request: 0,
            sent: HashMap::new(),
            shown: None,
            shutting_down: false,
            log: std::cell::RefCell::new(log),
        };
        server.report_setting_errors(&errors);
        server
    }

    /// Serve until the client says `exit`. The client has sent
    /// `initialized` already.
    pub fn run(&mut self) -> anyhow::Result<()> {
        if self.pulls_configuration {
            self.pull_configuration();
        }
        loop {
            let message = match self.next_deadline() {
                None => match self.connection.receiver.recv() {
                    Ok(message) => message,
                    Err(_) => return Ok(()),
                },
                Some(deadline) => match self.connection.receiver.recv_deadline(deadline) {
                    Ok(message) => message,
                    Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                        self.publish_settled();
                        continue;
                    }
                    Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return Ok(()),
                },
            };
            if let Message::Notification(n) = &message {
                if n.method == notification::Exit::METHOD {
                    return Ok(());
                }
            }
            // A defect met by one message must not end the session.
            let request = match &message {
                Message::Request(r) => Some(r.id.clone()),
                _ => None,
            };
            let handled =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle(message)));
            if handled.is_err() {
                log!(self, "internal error while handling a message; going on");
                if let Some(id) = request {
                    self.respond_error(
                        id,
                        ErrorCode::InternalError,
                        "internal error in pomp".into(),
                    );
                }
            }
        }
    }

    /// When the next document's text will have settled.
    fn next_deadline(&self) -> Option<Instant> {
        self.changed
            .keys()
            .filter_map(|uri| self.settles_at(uri))
            .min()
    }

    /// When the text of `uri`, changed, will have rested long enough.
    fn settles_at(&self, uri: &Uri) -> Option<Instant> {
        let pending = self.changed.get(uri)?;
        if pending.at_once {
            return Some(pending.last);
        }
        Some(pending.last + self.debounce(uri))
    }

    fn debounce(&self, uri: &Uri) -> Duration {
        let last_analysis = self
            .documents
            .get(uri)
            .map_or(Duration::ZERO, |d| d.last_analysis);
        self.config.debounce_after(last_analysis)
    }

    /// Note a change to `uri`. The first change after the text rested is
    /// analysed at once, with whatever changes the editor sent with it:
    /// its diagnostics come as soon as they can. Changes that follow it
    /// faster than the debounce wait until the text rests again, so that
    /// a burst of typing costs one analysis at its start and one at its
    /// end.
    fn note_change(&mut self, uri: Uri) {
        let now = Instant::now();
        let rested = self
            .last_changes
            .get(&uri)
            .is_none_or(|&last| now.duration_since(last) >= self.debounce(&uri));
        let at_once = rested || self.changed.get(&uri).is_some_and(|p| p.at_once);
        self.changed
            .insert(uri.clone(), Pending { last: now, at_once });
        self.last_changes.insert(uri, now);
    }

    fn handle(&mut self, message: Message) {
        match message {
            Message::Request(request) => self.request(request),
            Message::Notification(notification) => self.notification(notification),
            Message::Response(response) => self.response(response),
        }
    }

    fn request(&mut self, request: Request) {
        if self.shutting_down && request.method != request::Shutdown::METHOD {
            return self.respond_error(
                request.id,
                ErrorCode::InvalidRequest,
                "the server is shutting down".into(),
            );
        }
        let id = request.id.clone();
        let result = match request.method.as_str() {
            request::Shutdown::METHOD => {
                self.shutting_down = true;
                Ok(Json::Null)
            }
            request::HoverRequest::METHOD => self.with_params(request, Self::hover),
            request::InlayHintRequest::METHOD => self.with_params(request, Self::inlay_hints),
            request::CodeActionRequest::METHOD => self.with_params(request, Self::code_actions),
            request::ExecuteCommand::METHOD => self.with_params(request, Self::execute_command),
            PREVIEW => self.with_params(request, |s, p: UriParams| s.preview(&p.uri)),
            REGIONS => self.with_params(request, |s, p: UriParams| s.regions(&p.uri)),
            method => Err((
                ErrorCode::MethodNotFound,
                format!("pomp does not answer {method}"),
            )),
        };
        match result {
            Ok(value) => self.send(Response::new_ok(id, value)),
            Err((code, message)) => self.respond_error(id, code, message),
        }
    }

    fn with_params<P: serde::de::DeserializeOwned>(
        &mut self,
        request: Request,
        answer: impl FnOnce(&mut Self, P) -> Answer,
    ) -> Answer {
        let params = serde_json::from_value(request.params)
            .map_err(|e| (ErrorCode::InvalidParams, format!("{}: {e}", request.method)))?;
        answer(self, params)
    }

    fn notification(&mut self, notification: Notification) {
        let method = notification.method.clone();
        let result = match method.as_str() {
            notification::DidOpenTextDocument::METHOD => {
                parse(notification).map(|p: lsp_types::DidOpenTextDocumentParams| {
                    let d = p.text_document;
                    let uri = d.uri.clone();
                    self.documents.insert(
                        uri.clone(),
                        Document::new(d.uri, &d.language_id, d.version, d.text),
                    );
                    self.note_change(uri);
                })
            }
            notification::DidChangeTextDocument::METHOD => {
                parse(notification).map(|p: lsp_types::DidChangeTextDocumentParams| {
                    let uri = p.text_document.uri;
                    match self.documents.get_mut(&uri) {
                        Some(document) => {
                            document.change(
                                p.text_document.version,
                                p.content_changes,
                                self.encoding,
                            );
                            self.note_change(uri);
                        }
                        None => {
                            log!(self, "a change to {} which is not open", uri.as_str())
                        }
                    }
                })
            }
            notification::DidCloseTextDocument::METHOD => {
                parse(notification).map(|p: lsp_types::DidCloseTextDocumentParams| {
                    let uri = p.text_document.uri;
                    self.documents.remove(&uri);
                    self.changed.remove(&uri);
                    self.last_changes.remove(&uri);
                    // What was shown for a closed document is gone.
                    self.publish(uri, vec![], None);
                })
            }
            notification::DidChangeConfiguration::METHOD => {
                parse(notification).map(|p: lsp_types::DidChangeConfigurationParams| {
                    if self.pulls_configuration {
                        self.pull_configuration();
                    } else {
                        self.configure(&p.settings);
                    }
                })
            }
            _ => Ok(()),
        };
        if let Err(error) = result {
            log!(self, "{method}: {error}");
        }
    }

    fn response(&mut self, response: Response) {
        // Only the settings are waited for; whether a document was shown
        // changes nothing here.
        if self.sent.remove(&response.id) != Some("configuration") {
            return;
        }
        match response.response_result {
            Ok(Json::Array(sections)) => {
                if let Some(settings) = sections.first() {
                    self.configure(settings);
                }
            }
            Ok(other) => log!(self, "settings are not a list: {other}"),
            Err(error) => log!(self, "the editor sent no settings: {}", error.message),
        }
    }

    /// Take new settings: every open document is analysed again.
    fn configure(&mut self, settings: &Json) {
        let (config, errors) = Config::from_settings(settings);
        self.report_setting_errors(&errors);
        if config != self.config {
            self.config = config;
            let now = Instant::now();
            for (uri, document) in &mut self.documents {
                document.analysis = None;
                self.changed.insert(
                    uri.clone(),
                    Pending {
                        last: now,
                        at_once: false,
                    },
                );
            }
        }
    }

    fn report_setting_errors(&self, errors: &[String]) {
        if errors.is_empty() {
            return;
        }
        let message = format!("pomp: settings ignored: {}", errors.join("; "));
        log!(self, "{message}");
        self.notify::<notification::ShowMessage>(lsp_types::ShowMessageParams {
            typ: lsp_types::MessageType::WARNING,
            message,
        });
    }

    fn pull_configuration(&mut self) {
        let params = lsp_types::ConfigurationParams {
            items: vec![lsp_types::ConfigurationItem {
                scope_uri: None,
                section: Some("pomp".into()),
            }],
        };
        self.send_request::<request::WorkspaceConfiguration>(params, "configuration");
    }

    /// Analyse and publish every document whose text has settled.
    fn publish_settled(&mut self) {
        let now = Instant::now();
        let settled: Vec<Uri> = self
            .changed
            .keys()
            .filter(|uri| self.settles_at(uri).is_some_and(|at| at <= now))
            .cloned()
            .collect();
        for uri in settled {
            self.changed.remove(&uri);
            self.analyse_and_publish(&uri);
        }
    }

    /// Bring the analysis of `uri` up to date, publishing its diagnostics
    /// when they were not published yet.
    fn analyse_and_publish(&mut self, uri: &Uri) {
        let Some(document) = self.documents.get_mut(uri) else {
            return;
        };
        let fresh = document.analysis.is_none();
        let analysis = document.analyse(&self.config.instrument, self.encoding);
        if fresh || self.changed.remove(uri).is_some() {
            let diagnostics = features::diagnostics(analysis);
            let version = Some(analysis.version);
            self.publish(uri.clone(), diagnostics, version);
        }
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
        self.notify::<notification::PublishDiagnostics>(lsp_types::PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        });
    }

    /// The document `uri`, analysed as it is now.
    fn analysed(&mut self, uri: &Uri) -> Result<&Document, (ErrorCode, String)> {
        if !self.documents.contains_key(uri) {
            return Err((
                ErrorCode::InvalidParams,
                format!("{} is not open", uri.as_str()),
            ));
        }
        self.analyse_and_publish(uri);
        Ok(&self.documents[uri])
    }

    fn hover(&mut self, params: lsp_types::HoverParams) -> Answer {
        let at = params.text_document_position_params;
        let encoding = self.encoding;
        let document = self.analysed(&at.text_document.uri)?;
        let offset = document
            .lines
            .offset(document.text.as_bytes(), at.position, encoding);
        let rendered = document.rendered(encoding).expect("analysed");
        let regions = &rendered.regions;
        let hover = regions.region_of_directive_at(offset).map(|region| {
            let parent = region
                .idf
                .parent
                .as_ref()
                .and_then(|id| regions.region_with_id(id));
            features::hover(region, parent, regions.language)
        });
        Ok(serde_json::to_value(hover).expect("a hover is JSON"))
    }

    fn inlay_hints(&mut self, params: lsp_types::InlayHintParams) -> Answer {
        let encoding = self.encoding;
        let document = self.analysed(&params.text_document.uri)?;
        let rendered = document.rendered(encoding).expect("analysed");
        Ok(json!(features::inlay_hints(rendered, params.range)))
    }

    fn code_actions(&mut self, params: lsp_types::CodeActionParams) -> Answer {
        let uri = params.text_document.uri;
        if !self.documents.contains_key(&uri) {
            return Ok(Json::Null);
        }
        let action = lsp_types::CodeAction {
            title: "Show instrumented source".into(),
            kind: Some(lsp_types::CodeActionKind::EMPTY),
            command: Some(lsp_types::Command {
                title: "Show instrumented source".into(),
                command: SHOW_INSTRUMENTED.into(),
                arguments: Some(vec![json!(uri.as_str())]),
            }),
            ..lsp_types::CodeAction::default()
        };
        Ok(json!([action]))
    }

    /// Write the instrumented text to a file of its own and ask the editor
    /// to show it; the answer holds the text too, for editors that show it
    /// as a virtual document instead.
    fn execute_command(&mut self, params: lsp_types::ExecuteCommandParams) -> Answer {
        if params.command != SHOW_INSTRUMENTED {
            return Err((
                ErrorCode::InvalidParams,
                format!("unknown command {}", params.command),
            ));
        }
        let uri: Uri = params
            .arguments
            .first()
            .and_then(Json::as_str)
            .and_then(|s| s.parse().ok())
            .ok_or((
                ErrorCode::InvalidParams,
                "expected the document's URI".to_string(),
            ))?;
        let mut preview = self.preview(&uri)?;
        match self.write_shown(&uri) {
            Ok(shown) => {
                if self.shows_documents {
                    self.send_request::<request::ShowDocument>(
                        lsp_types::ShowDocumentParams {
                            uri: shown.clone(),
                            external: Some(false),
                            take_focus: Some(true),
                            selection: None,
                        },
                        "show",
                    );
                }
                preview["shown"] = json!(shown.as_str());
            }
            Err(error) => log!(self, "cannot write the instrumented source: {error}"),
        }
        Ok(preview)
    }

    /// Write the instrumented text of `uri` where the editor can open it:
    /// `<stem>.pomp.<ext>` in a directory of this session's.
    fn write_shown(&mut self, uri: &Uri) -> std::io::Result<Uri> {
        if self.shown.is_none() {
            self.shown = Some(tempfile::Builder::new().prefix("pomp-lsp-").tempdir()?);
        }
        let dir = self.shown.as_ref().expect("made above").path();
        let document = &self.documents[uri];
        let language = document
            .language
            .unwrap_or(pomp_core::language::Language::C);
        let path = dir.join(pomp_core::instrument::instrumented_name(
            &document.path(),
            language,
        ));
        let output = &document.rendered(self.encoding).expect("analysed").output;
        pomp_files::write_atomically(&path, output)?;
        document::uri_of(&path).ok_or_else(|| std::io::Error::other("no URI for the file"))
    }

    /// The whole instrumented text of the buffer, with its diagnostics:
    /// a file with errors is answered, not refused.
    fn preview(&mut self, uri: &Uri) -> Answer {
        let encoding = self.encoding;
        let document = self.analysed(uri)?;
        let analysis = document.analysis.as_ref().expect("analysed");
        let rendered = document.rendered(encoding).expect("analysed");
        Ok(json!({
            "uri": uri.as_str(),
            "version": analysis.version,
            "language": rendered.regions.language,
            "text": String::from_utf8_lossy(&rendered.output),
            "errors": analysis.error_count,
            "diagnostics": features::diagnostics(analysis),
        }))
    }

    /// The regions with their edits, as `pomp preview --format json`.
    fn regions(&mut self, uri: &Uri) -> Answer {
        let encoding = self.encoding;
        let document = self.analysed(uri)?;
        let analysis = document.analysis.as_ref().expect("analysed");
        let rendered = document.rendered(encoding).expect("analysed");
        let mut answer = serde_json::to_value(&rendered.regions).expect("regions are JSON");
        answer["uri"] = json!(uri.as_str());
        answer["version"] = json!(analysis.version);
        Ok(answer)
    }

    /// Bytes held for open documents, by URI.
    pub fn memory(&self) -> Vec<(String, usize)> {
        self.documents
            .iter()
            .map(|(uri, d)| (uri.as_str().to_string(), d.memory()))
            .collect()
    }

    /// A line of the server's log.
    fn log(&self, message: std::fmt::Arguments) {
        let _ = writeln!(self.log.borrow_mut(), "pomp lsp: {message}");
    }

    fn send(&self, message: impl Into<Message>) {
        if self.connection.sender.send(message.into()).is_err() {
            log!(self, "the editor is gone");
        }
    }

    fn respond_error(&self, id: RequestId, code: ErrorCode, message: String) {
        log!(self, "{message}");
        self.send(Response::new_err(id, code as i32, message));
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.into(), params));
    }

    fn send_request<R: lsp_types::request::Request>(
        &mut self,
        params: R::Params,
        purpose: &'static str,
    ) {
        self.next_request += 1;
        let id = RequestId::from(format!("pomp-{}", self.next_request));
        self.sent.insert(id.clone(), purpose);
        self.send(Request::new(id, R::METHOD.into(), params));
    }
}

type Answer = Result<Json, (ErrorCode, String)>;

/// A change whose diagnostics are not published yet.
struct Pending {
    /// The time of the latest change.
    last: Instant,
    /// Analysed as soon as the messages already sent are handled, not
    /// after the debounce.
    at_once: bool,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct UriParams {
    /// `{"uri": ...}` or `{"textDocument": {"uri": ...}}`.
    #[serde(alias = "textDocument", deserialize_with = "uri_or_document")]
    uri: Uri,
}

fn uri_or_document<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Uri, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Either {
        Uri(Uri),
        Document { uri: Uri },
    }
    Ok(match Either::deserialize(d)? {
        Either::Uri(uri) | Either::Document { uri } => uri,
    })
}

fn parse<P: serde::de::DeserializeOwned>(notification: Notification) -> Result<P, String> {
    serde_json::from_value(notification.params).map_err(|e| e.to_string())
}
