//! `pomp lsp`: a language server for C, C++ and Fortran over standard
//! input and output. While the user types it instruments the editor's
//! unsaved buffer and publishes what cannot be instrumented and why; it
//! answers hovers on directives (region, block, events, inserted code),
//! inlay hints naming each directive's events, the code action "Show
//! instrumented source", and two requests of its own: `pomp/preview` (the
//! instrumented text) and `pomp/regions` (the regions and their edits, as
//! `pomp preview --format json`). It prints nothing: it logs where its
//! caller says.

pub mod config;
pub mod document;
pub mod features;
pub mod server;

use lsp_server::Connection;
use lsp_types::{
    CodeActionProviderCapability, ExecuteCommandOptions, HoverProviderCapability, InitializeParams,
    OneOf, PositionEncodingKind, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind,
};
use pomp_preview::Encoding;

/// Initialize with the client on `connection`, then serve it until it
/// says `exit`, logging to `log`.
pub fn serve(connection: &Connection, log: &mut (dyn std::io::Write + Send)) -> anyhow::Result<()> {
    let (id, params) = connection.initialize_start()?;
    let params: InitializeParams = serde_json::from_value(params)?;
    let encoding = position_encoding(&params);
    let result = lsp_types::InitializeResult {
        capabilities: capabilities(encoding),
        server_info: Some(ServerInfo {
            name: "pomp".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    };
    connection.initialize_finish(id, serde_json::to_value(result)?)?;
    server::Server::new(connection, &params, encoding, log).run()
}

/// UTF-8 when the client counts so too (offsets are bytes already), else
/// the protocol's default, UTF-16.
fn position_encoding(params: &InitializeParams) -> Encoding {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

fn capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::new(encoding.name())),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        inlay_hint_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![server::SHOW_INSTRUMENTED.into()],
            ..ExecuteCommandOptions::default()
        }),
        ..ServerCapabilities::default()
    }
}
