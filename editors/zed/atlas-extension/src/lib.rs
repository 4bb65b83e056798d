//! Zed runs language servers only through extensions; this one starts `atlas-ls` (found on the
//! worktree's PATH, or at `lsp.atlas-ls.binary.path`) and hands it the `lsp.atlas-ls` settings.
use zed_extension_api::{self as zed, serde_json, settings::LspSettings, LanguageServerId, Result};

struct AtlasExtension;

impl zed::Extension for AtlasExtension {
    fn new() -> Self {
        AtlasExtension
    }

    fn language_server_command(
        &mut self,
        language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let binary = LspSettings::for_worktree(language_server_id.as_ref(), worktree)
            .ok()
            .and_then(|settings| settings.binary);
        let configured = binary.as_ref().and_then(|b| b.path.clone());
        let command = configured.or_else(|| worktree.which("atlas-ls")).ok_or_else(|| {
            "atlas-ls is not on PATH: install Atlas (`uv tool install atlas-docs`) or set \
             lsp.atlas-ls.binary.path in settings.json"
                .to_string()
        })?;
        let args = binary.and_then(|b| b.arguments).unwrap_or_default();
        Ok(zed::Command {
            command,
            args,
            env: worktree.shell_env(),
        })
    }

    fn language_server_initialization_options(
        &mut self,
        language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<serde_json::Value>> {
        Ok(LspSettings::for_worktree(language_server_id.as_ref(), worktree)
            .ok()
            .and_then(|settings| settings.initialization_options))
    }

    fn language_server_workspace_configuration(
        &mut self,
        language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<serde_json::Value>> {
        Ok(LspSettings::for_worktree(language_server_id.as_ref(), worktree)
            .ok()
            .and_then(|settings| settings.settings))
    }
}

zed::register_extension!(AtlasExtension);
