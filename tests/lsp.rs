//! `pomp lsp` spoken to as an editor does: a client here runs the binary,
//! writes JSON-RPC to its standard input and reads its standard output.
//! What the server answers is checked against the library's own
//! instrumentation of the same text, so the buffer, not the disk, is what
//! counts: none of the files opened here exists.

use lsp_server::{Message, Notification, Request, RequestId, Response};
use pomp_core::language::Language;
use pomp_core::source::SourceFile;
use serde_json::{json, Value};
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Long enough for a loaded machine; an answer normally takes milliseconds.
const PATIENCE: Duration = Duration::from_secs(60);

struct Client {
    server: Child,
    input: ChildStdin,
    output: Receiver<Message>,
    next_id: i32,
    /// Notifications that arrived while waiting for something else.
    notifications: Vec<Notification>,
    /// What to answer `workspace/configuration` with.
    settings: Value,
    /// Requests the server sent.
    server_requests: Vec<Request>,
}

impl Client {
    fn start() -> Client {
        let mut server = Command::new(env!("CARGO_BIN_EXE_pomp"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("pomp lsp starts");
        let input = server.stdin.take().unwrap();
        let stdout = server.stdout.take().unwrap();
        let (sender, output) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Ok(Some(message)) = Message::read(&mut reader) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        Client {
            server,
            input,
            output,
            next_id: 0,
            notifications: vec![],
            settings: Value::Null,
            server_requests: vec![],
        }
    }

    /// Start and initialize with `capabilities`.
    fn initialized(capabilities: Value, options: Value) -> (Client, Value) {
        let mut client = Client::start();
        let result = client
            .request(
                "initialize",
                json!({"processId": null, "rootUri": null, "capabilities": capabilities,
                       "initializationOptions": options}),
            )
            .expect("initialize answers");
        client.notify("initialized", json!({}));
        (client, result)
    }

    fn send(&mut self, message: Message) {
        message.write(&mut self.input).expect("the server reads");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(Notification::new(method.into(), params).into());
    }

    /// The result of a request, or the error the server answered with.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, (i32, String)> {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.send(Request::new(id.clone(), method.into(), params).into());
        let response = self.wait_for(|message| match message {
            Message::Response(r) if r.id == id => Some(r.clone()),
            _ => None,
        });
        response.response_result.map_err(|e| (e.code, e.message))
    }

    /// The next message `wanted` picks, answering the server's requests
    /// and keeping notifications meanwhile.
    fn wait_for<T>(&mut self, mut wanted: impl FnMut(&Message) -> Option<T>) -> T {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let message = match self.output.recv_timeout(deadline - Instant::now()) {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) => panic!("no answer from pomp lsp"),
                Err(RecvTimeoutError::Disconnected) => panic!("pomp lsp ended"),
            };
            if let Some(found) = wanted(&message) {
                return found;
            }
            match message {
                Message::Notification(n) => self.notifications.push(n),
                Message::Request(r) => {
                    let result = match r.method.as_str() {
                        "workspace/configuration" => json!([self.settings]),
                        _ => Value::Null,
                    };
                    self.server_requests.push(r.clone());
                    self.send(Response::new_ok(r.id, result).into());
                }
                Message::Response(_) => {}
            }
        }
    }

    /// The diagnostics published for `uri` at `version`.
    fn diagnostics(&mut self, uri: &str, version: i32) -> Vec<Value> {
        let matches = |n: &Notification| {
            n.method == "textDocument/publishDiagnostics"
                && n.params["uri"] == uri
                && n.params["version"] == version
        };
        if let Some(at) = self.notifications.iter().position(matches) {
            let n = self.notifications.remove(at);
            return n.params["diagnostics"].as_array().unwrap().clone();
        }
        self.wait_for(|message| match message {
            Message::Notification(n) if matches(n) => {
                Some(n.params["diagnostics"].as_array().unwrap().clone())
            }
            _ => None,
        })
    }

    fn open(&mut self, uri: &str, language: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
        );
    }

    /// shutdown, exit, and the server's exit status and standard error.
    fn finish(mut self) -> (std::process::ExitStatus, String) {
        assert_eq!(self.request("shutdown", Value::Null), Ok(Value::Null));
        self.notify("exit", Value::Null);
        drop(self.input);
        let output = self.server.wait_with_output().unwrap();
        (
            output.status,
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

/// A path that does not exist: the server must never read it.
fn nowhere(name: &str) -> (PathBuf, String) {
    let path = Path::new("/nonexistent/pomp-lsp-test").join(name);
    let uri = format!("file://{}", path.display());
    (path, uri)
}

fn instrumented(path: &Path, text: &str, language: Language) -> String {
    let file = SourceFile::new(path, text.as_bytes().to_vec(), language);
    let done = pomp_core::instrument::instrument(&file, &pomp_core::instrument::Options::default());
    String::from_utf8(done.output(&file)).unwrap()
}

fn expected_regions(path: &Path, text: &str) -> pomp_preview::Document {
    let file = SourceFile::new(path, text.as_bytes().to_vec(), Language::C);
    let done = pomp_core::instrument::instrument(&file, &pomp_core::instrument::Options::default());
    let lines = pomp_preview::LineIndex::new(text.as_bytes());
    pomp_preview::Document::new(&file, &done, &lines, pomp_preview::Encoding::Utf16)
}

fn position(line: u32, character: u32) -> Value {
    json!({"line": line, "character": character})
}

/// Comments outside ASCII before the directives (two bytes but one UTF-16
/// unit, four bytes but two units) and CRLF line ends.
const STENCIL: &str = "#include <stdio.h>\r\n\
/* é 𝜋 */ static double a[100];\r\n\
int main(void) {\r\n\
#pragma omp parallel\r\n\
  {\r\n\
#pragma omp for\r\n\
    for (int i = 0; i < 100; i++) a[i] = i; /* «sum» */\r\n\
  }\r\n\
  printf(\"%f\\n\", a[99]);\r\n\
  return 0;\r\n\
}\r\n";

#[test]
fn a_session_from_initialize_to_exit() {
    let (mut client, initialize) = Client::initialized(json!({}), Value::Null);
    let capabilities = &initialize["capabilities"];
    assert_eq!(capabilities["positionEncoding"], "utf-16");
    assert_eq!(capabilities["textDocumentSync"], 2, "incremental");
    assert_eq!(capabilities["hoverProvider"], true);

    let (path, uri) = nowhere("stencil.c");
    client.open(&uri, "c", STENCIL);
    assert_eq!(client.diagnostics(&uri, 1), Vec::<Value>::new());

    // Hover on `parallel` in line 4 (0-based 3).
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position(3, 14)}),
        )
        .unwrap();
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.starts_with("**parallel** region 1"), "{text}");
    assert!(text.contains(" in `main`"), "{text}");
    assert!(text.contains("Block: line 4 to line 8"), "{text}");
    assert!(
        text.contains("`POMP2_Parallel_fork`, `POMP2_Parallel_begin`, `POMP2_Parallel_end`, `POMP2_Parallel_join`"),
        "{text}"
    );
    // The code inserted for the region, every line of it.
    let expected = expected_regions(&path, STENCIL);
    for edit in expected.regions[0].edits.iter() {
        for line in edit
            .text
            .lines()
            .filter(|l| !l.starts_with("#line") && !l.is_empty())
        {
            assert!(text.contains(line), "{line:?} not in {text}");
        }
    }
    assert!(text.contains("```c\n"), "{text}");
    assert!(!text.contains("#line"), "{text}");
    assert_eq!(hover["range"]["start"], position(3, 0));
    assert_eq!(hover["range"]["end"], position(3, 20));
    // A nested construct names the region around it as reports do.
    let inner = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position(5, 10)}),
        )
        .unwrap();
    let text = inner["contents"]["value"].as_str().unwrap();
    assert!(text.starts_with("**for** region 2"), "{text}");
    assert!(
        text.contains(", inside parallel in main (stencil.c:4)"),
        "{text}"
    );
    // No hover away from directives.
    let nothing = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position(8, 4)}),
        )
        .unwrap();
    assert_eq!(nothing, Value::Null);

    let hints = client
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri},
                   "range": {"start": position(0, 0), "end": position(11, 0)}}),
        )
        .unwrap();
    let labels: Vec<&str> = hints
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "parallel · Parallel_fork, Parallel_begin, Parallel_end, Parallel_join",
            "for · For_enter, Implicit_barrier_enter, Implicit_barrier_exit, For_exit"
        ]
    );
    assert_eq!(hints[1]["position"], position(5, 15));

    let preview = client.request("pomp/preview", json!({"uri": uri})).unwrap();
    assert_eq!(preview["text"], instrumented(&path, STENCIL, Language::C));
    assert_eq!(preview["errors"], 0);

    // Two edits in one change, at UTF-16 columns: `𝜋` after `é` becomes
    // `pi` (its two units replaced), and the loop directive gets `nowait`.
    let edited = STENCIL
        .replace("𝜋", "pi")
        .replace("#pragma omp for\r\n", "#pragma omp for nowait\r\n");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": position(1, 5), "end": position(1, 7)}, "text": "pi"},
            {"range": {"start": position(5, 15), "end": position(5, 15)}, "text": " nowait"},
        ]}),
    );
    assert_eq!(client.diagnostics(&uri, 2), Vec::<Value>::new());
    let preview = client.request("pomp/preview", json!({"uri": uri})).unwrap();
    assert_eq!(preview["version"], 2);
    assert_eq!(preview["text"], instrumented(&path, &edited, Language::C));

    let regions = client.request("pomp/regions", json!({"uri": uri})).unwrap();
    let regions = regions["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 2);
    assert_eq!(regions[1]["type"], "for");
    assert_eq!(regions[1]["idf"]["clauses"][0]["name"], "nowait");
    assert_eq!(regions[1]["directive"]["range"]["end"], position(5, 22));

    let (status, stderr) = client.finish();
    assert!(status.success(), "{stderr}");
}

#[test]
fn a_file_that_does_not_parse_answers_with_diagnostics() {
    let (mut client, _) = Client::initialized(json!({}), Value::Null);
    let (_, uri) = nowhere("broken.c");
    let text = "void f(int n) {\n#pragma omp parallel for\n  for (int i = 0; i < n; i++ { }\n}\n\
                void g(void) {\n#pragma omp barrier\n}\n";
    client.open(&uri, "c", text);
    let diagnostics = client.diagnostics(&uri, 1);
    assert!(!diagnostics.is_empty());
    assert!(diagnostics.iter().all(|d| d["source"] == "pomp"));
    let error = diagnostics
        .iter()
        .find(|d| d["severity"] == 1)
        .expect("an error");
    assert_eq!(error["range"]["start"]["line"], 1, "{error}");

    // Requests are answered all the same, the rest of the file previewed.
    let preview = client.request("pomp/preview", json!({"uri": uri})).unwrap();
    assert!(preview["errors"].as_u64().unwrap() >= 1);
    assert_eq!(
        preview["diagnostics"].as_array().unwrap().len(),
        diagnostics.len()
    );
    assert!(preview["text"]
        .as_str()
        .unwrap()
        .contains("POMP2_Barrier_enter"));
    let regions = client
        .request("pomp/regions", json!({"textDocument": {"uri": uri}}))
        .unwrap();
    assert_eq!(regions["regions"][0]["type"], "barrier");

    // Bad requests are errors, and the server goes on.
    let (unknown, _) = nowhere("never-opened.c");
    let (code, message) = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": unknown}, "position": position(0, 0)}),
        )
        .unwrap_err();
    assert_eq!(code, -32602, "{message}");
    assert!(message.contains("is not open"));
    assert_eq!(
        client
            .request("pomp/preview", json!({"nothing": 1}))
            .unwrap_err()
            .0,
        -32602
    );
    assert_eq!(
        client.request("pomp/unknown", json!({})).unwrap_err().0,
        -32601
    );
    client.notify("textDocument/didChange", json!({"garbage": true}));

    // A document in no language pomp knows is said so.
    let (_, notes) = nowhere("notes.txt");
    client.open(&notes, "plaintext", "#pragma omp parallel\n");
    let said = client.diagnostics(&notes, 1);
    assert!(said[0]["message"]
        .as_str()
        .unwrap()
        .contains("cannot tell the language"));

    let (status, stderr) = client.finish();
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("pomp lsp:"),
        "errors are logged on stderr: {stderr}"
    );
}

/// Each kind of problem the issue names, typed into a clean buffer: an
/// unknown directive, a misspelt clause, a directive without a block and a
/// clause the split of a combined construct puts on its outer part.
#[test]
fn each_kind_of_directive_problem_is_diagnosed_as_it_is_typed() {
    let (mut client, _) = Client::initialized(json!({}), Value::Null);
    let (_, uri) = nowhere("kinds.c");
    let clean = "void f(int n, int *a) {\n\
                 #pragma omp flush\n\
                 #pragma omp parallel shared(a)\n\
                 \x20 { }\n\
                 #pragma omp parallel for shared(a)\n\
                 \x20 for (int i = 0; i < n; i++) a[i] = i;\n\
                 }\n\
                 void g(void) {\n\
                 #pragma omp single\n\
                 \x20 g();\n\
                 }\n";
    client.open(&uri, "c", clean);
    assert_eq!(client.diagnostics(&uri, 1), Vec::<Value>::new());

    let range = |line: u32, from: u32, to: u32| json!({"start": position(line, from), "end": position(line, to)});
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": range(1, 12, 17), "text": "frobnicate"},
            {"range": range(2, 21, 27), "text": "sharde"},
            {"range": range(4, 25, 31), "text": "vendor_hint"},
            {"range": {"start": position(9, 0), "end": position(10, 0)}, "text": ""},
        ]}),
    );
    let diagnostics = client.diagnostics(&uri, 2);
    let found = |line: u32, severity: u32, words: &str| {
        diagnostics.iter().any(|d| {
            d["range"]["start"]["line"] == line
                && d["severity"] == severity
                && d["message"].as_str().unwrap().contains(words)
        })
    };
    assert!(
        found(1, 2, "unknown OpenMP directive `frobnicate`"),
        "{diagnostics:#?}"
    );
    // A near miss of a clause is an error; another word a kept clause.
    assert!(found(2, 1, "unknown clause `sharde`"), "{diagnostics:#?}");
    assert!(
        found(4, 3, "unknown clause `vendor_hint` placed on `parallel`"),
        "{diagnostics:#?}"
    );
    assert!(found(8, 1, "directive without a block"), "{diagnostics:#?}");

    // Typed back, the buffer is clean again.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3},
               "contentChanges": [{"text": clean}]}),
    );
    assert_eq!(client.diagnostics(&uri, 3), Vec::<Value>::new());
    let (status, stderr) = client.finish();
    assert!(status.success(), "{stderr}");
}

#[test]
fn settings_from_the_editor_change_the_instrumentation() {
    // Pushed: initialization options, then a configuration change.
    let (mut client, _) = Client::initialized(json!({}), json!({"disable": ["barrier"]}));
    let (_, uri) = nowhere("settings.c");
    let text = "void f(void) {\n#pragma omp parallel\n  {\n#pragma omp barrier\n  }\n}\n";
    client.open(&uri, "c", text);
    let types = |client: &mut Client| -> Vec<String> {
        let regions = client.request("pomp/regions", json!({"uri": uri})).unwrap();
        regions["regions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["type"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(types(&mut client), ["parallel"]);
    client.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"pomp": {"interface": "pomp1"}}}),
    );
    assert_eq!(types(&mut client), ["parallel", "barrier"]);
    let preview = client.request("pomp/preview", json!({"uri": uri})).unwrap();
    assert!(preview["text"]
        .as_str()
        .unwrap()
        .contains("pomp_parallel_fork("));

    // A wrong setting is shown to the user and leaves the rest in force.
    client.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"pomp": {"interface": "pomp3", "disable": "parallel"}}}),
    );
    assert_eq!(types(&mut client), ["barrier"]);
    assert!(client
        .notifications
        .iter()
        .any(|n| n.method == "window/showMessage"
            && n.params["message"]
                .as_str()
                .unwrap()
                .contains("interface: unknown value 'pomp3'")));
    client.finish();

    // Pulled: the client answers workspace/configuration.
    let mut client = Client::start();
    client.settings = json!({"events": "opari2", "disable": ["taskwait"]});
    client
        .request(
            "initialize",
            json!({"capabilities": {"workspace": {"configuration": true}}}),
        )
        .unwrap();
    client.notify("initialized", json!({}));
    let text = "void f(void) {\n#pragma omp taskwait\n#pragma omp taskgroup\n  { }\n}\n";
    client.open(&uri, "c", text);
    // The settings arrive while the document is analysed: wait for them.
    let deadline = Instant::now() + PATIENCE;
    while types(&mut client) != Vec::<String>::new() {
        assert!(Instant::now() < deadline, "settings not applied");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(client.server_requests.iter().any(
        |r| r.method == "workspace/configuration" && r.params["items"][0]["section"] == "pomp"
    ));
    client.finish();
}

/// Advice names an option as the settings spell it, which the editor's
/// user writes, not as the command line does.
#[test]
fn hints_name_the_setting_to_change() {
    let (mut client, _) = Client::initialized(json!({}), Value::Null);
    let (_, uri) = nowhere("untied.c");
    let text = "void f(void) {\n#pragma omp task untied\n  { }\n}\n";
    client.open(&uri, "c", text);
    let diagnostics = client.diagnostics(&uri, 1);
    let messages: Vec<&str> = (diagnostics.iter())
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("`\"keep-untied\": true`")),
        "{messages:#?}"
    );
    assert!(messages.iter().all(|m| !m.contains("`--")), "{messages:#?}");
    client.finish();
}

#[test]
fn the_code_action_shows_the_instrumented_source() {
    let (mut client, initialize) = Client::initialized(
        json!({"window": {"showDocument": {"support": true}},
               "general": {"positionEncodings": ["utf-8", "utf-16"]}}),
        Value::Null,
    );
    assert_eq!(initialize["capabilities"]["positionEncoding"], "utf-8");
    let (path, uri) = nowhere("shown.f90");
    let text =
        "program p\n  integer :: i\n!$omp parallel do\n  do i = 1, 4\n  end do\nend program p\n";
    client.open(&uri, "fortran", text);
    assert_eq!(client.diagnostics(&uri, 1), Vec::<Value>::new());
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri},
                   "range": {"start": position(2, 0), "end": position(2, 0)},
                   "context": {"diagnostics": []}}),
        )
        .unwrap();
    assert_eq!(actions[0]["title"], "Show instrumented source");
    let command = &actions[0]["command"];
    let shown = client
        .request(
            "workspace/executeCommand",
            json!({"command": command["command"], "arguments": command["arguments"]}),
        )
        .unwrap();
    let expected = instrumented(&path, text, Language::FortranFree);
    assert_eq!(shown["text"], expected);
    let file = shown["shown"]
        .as_str()
        .unwrap()
        .strip_prefix("file://")
        .unwrap();
    assert!(file.ends_with("/shown.pomp.F90"), "{file}");
    assert_eq!(std::fs::read_to_string(file).unwrap(), expected);
    // The editor was asked to show it before the command was answered.
    let show = client
        .server_requests
        .iter()
        .find(|r| r.method == "window/showDocument")
        .expect("asked to show the file");
    assert_eq!(show.params["uri"], shown["shown"]);
    client.finish();
    // The server's directory goes with it.
    assert!(!Path::new(file).exists());
}

/// Runs `script` in headless Neovim without user configuration, in `dir`
/// with its state kept there, and returns the results the script wrote to
/// `POMP_OUT`, which must say it went well.
fn neovim_results(
    nvim: &Path,
    script: &Path,
    dir: &Path,
    configure: impl FnOnce(&mut Command),
) -> Value {
    let out = dir.join("results.json");
    let mut command = Command::new(nvim);
    command
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("POMP_OUT", &out)
        .env("XDG_STATE_HOME", dir)
        .env("XDG_CACHE_HOME", dir)
        .current_dir(dir)
        .stdin(Stdio::null());
    configure(&mut command);
    let run = command.output().unwrap();
    let results: Value = match std::fs::read(&out) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap(),
        Err(_) => panic!(
            "nvim wrote no results: {}\n{}",
            run.status,
            String::from_utf8_lossy(&run.stderr)
        ),
    };
    assert_eq!(results["ok"], true, "{}", results["failure"]);
    results
}

/// Neovim's built-in client (Debian's `neovim`; `scripts/setup` installs
/// it) runs `tests/nvim/session.lua` headless against `pomp lsp`.
#[test]
fn neovim_talks_to_pomp_lsp() {
    let nvim = which("nvim").expect("nvim is needed for this test: scripts/setup installs it");
    let dir = tempfile::tempdir().unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nvim");
    let c_file = dir.path().join("demo.c");
    let fortran_file = dir.path().join("demo.f90");
    std::fs::copy(here.join("demo.c"), &c_file).unwrap();
    std::fs::copy(here.join("demo.f90"), &fortran_file).unwrap();
    let results = neovim_results(&nvim, &here.join("session.lua"), dir.path(), |command| {
        command
            .env("POMP", env!("CARGO_BIN_EXE_pomp"))
            .env("POMP_C_FILE", &c_file)
            .env("POMP_FORTRAN_FILE", &fortran_file);
    });
    let files = results["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);

    let c = &files[0];
    let c_text = std::fs::read_to_string(&c_file).unwrap();
    let diagnostics = c["diagnostics"].as_array().unwrap();
    let broken_line = c_text.lines().position(|l| l.contains("BROKEN")).unwrap();
    assert!(
        diagnostics
            .iter()
            .any(|d| d["severity"] == 1 && d["range"]["start"]["line"] == broken_line),
        "{diagnostics:?}"
    );
    // The range ends where the line does, counted in UTF-16 units.
    let units = c_text
        .lines()
        .nth(broken_line)
        .unwrap()
        .encode_utf16()
        .count();
    assert!(diagnostics
        .iter()
        .all(|d| d["range"]["end"]["character"] == units));
    assert_eq!(c["editor_diagnostics"], diagnostics.len());
    let hover = c["hover"]["contents"]["value"].as_str().unwrap();
    assert!(hover.starts_with("**parallel** region 1"), "{hover}");
    assert!(hover.contains("`POMP2_Parallel_fork`"), "{hover}");
    let expected = instrumented(&c_file, &c_text, Language::C);
    assert_eq!(c["preview"]["text"], expected);
    assert!(c["preview"]["errors"].as_u64().unwrap() >= 1);
    // Fixed in the buffer: the clause replaced after `é𝜋`, sent by Neovim
    // as an incremental change.
    assert_eq!(c["fixed_text"], c_text.replace("colapse", "collapse"));
    assert_eq!(c["fixed_diagnostics"], json!([]));
    let fixed = c["fixed_text"].as_str().unwrap();
    assert_eq!(
        c["fixed_preview"]["text"],
        instrumented(&c_file, fixed, Language::C)
    );
    assert_eq!(c["fixed_preview"]["version"], c["fixed_version"]);

    let fortran = &files[1];
    let fortran_text = std::fs::read_to_string(&fortran_file).unwrap();
    assert_eq!(fortran["diagnostics"], json!([]));
    let hover = fortran["hover"]["contents"]["value"].as_str().unwrap();
    // OPARI2's name for the combined construct.
    assert!(hover.starts_with("**paralleldo** region 1"), "{hover}");
    assert!(hover.contains("```fortran\n"), "{hover}");
    assert!(hover.contains("`POMP2_Do_enter`"), "{hover}");
    assert_eq!(
        fortran["preview"]["text"],
        instrumented(&fortran_file, &fortran_text, Language::FortranFree)
    );
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|dir| Path::new(dir).join(program))
        .find(|p| p.is_file())
}

/// The Neovim snippet of the README, cut from it as written, is what a
/// user's init runs: in Debian's Neovim it attaches, hovers, and both the
/// code action and `:PompPreview` open the instrumented buffer.
#[test]
fn the_readme_neovim_snippet_works_as_written() {
    let nvim = which("nvim").expect("nvim is needed for this test: scripts/setup installs it");
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let after = readme
        .split_once("Neovim (0.7")
        .expect("the README's Neovim section")
        .1;
    let snippet = after
        .split_once("```lua\n")
        .and_then(|(_, rest)| rest.split_once("```\n"))
        .expect("a lua block after it")
        .0;
    let dir = tempfile::tempdir().unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nvim");
    let snippet_file = dir.path().join("init.lua");
    std::fs::write(&snippet_file, snippet).unwrap();
    let c_file = dir.path().join("demo.c");
    let text = "#include <stdio.h>\nint main(void) {\n#pragma omp parallel\n  { printf(\"hi\\n\"); }\n  return 0;\n}\n";
    std::fs::write(&c_file, text).unwrap();
    // `pomp` on the PATH, as the README asks.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pomp"), bin.join("pomp")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let results = neovim_results(&nvim, &here.join("readme.lua"), dir.path(), |command| {
        command
            .env("PATH", path)
            .env("POMP_SNIPPET", &snippet_file)
            .env("POMP_C_FILE", &c_file);
    });
    assert_eq!(results["attached"], true);
    let hover = results["hover"]["contents"]["value"].as_str().unwrap();
    assert!(hover.starts_with("**parallel** region 1"), "{hover}");
    let expected = instrumented(&c_file, text, Language::C);
    for shown in [&results["code_action"], &results["command"]] {
        assert_eq!(shown["windows"], 1, "{results}");
        assert_eq!(shown["buftype"], "nofile");
        assert_eq!(shown["filetype"], "c");
        assert_eq!(shown["text"].as_str().unwrap(), expected);
    }
    assert_eq!(results["actions"], 1);
}
