/**
 * The Settings dialog: provider, model, base URL and API key, the guest image, the default sandbox
 * and approval policy, the warm-pool size and the stream idle timeout. Values are checked with the
 * shared zod schema before saving (and again by the service); a refusal shows beside its field. A
 * saved key is never shown again — only "a key is saved" — and where Electron's safeStorage falls
 * back to plain text on Linux (`basic_text`) the key field says so. In the browser host keys come
 * only from the server's environment: the field is replaced by that note and the connection in
 * force. "Test connection" asks the model server for its models. The theme (system/light/dark) is
 * this browser's own choice, applied at once (features/layout/color-scheme.ts). The MCP panel
 * (features/mcp/McpPanel.tsx) lists the servers of the repository on screen. What is wrong with the
 * settings file (a bad value, whose default the form shows, or a file that is not JSON) is shown on top.
 */
import { useEffect, useState } from 'react'
import { PROVIDER_NAMES, SANDBOX_POLICIES, APPROVAL_POLICIES } from '../../../../shared/enum-values'
import { SettingsSchema, type Settings, type SettingsView } from '../../../../shared/settings'
import { useAppStore } from '../../store/app-store'
import { useSessionsStore } from '../sessions/sessions-store'
import { THEME_CHOICES, setThemeChoice, useThemeChoice, type ThemeChoice } from '../layout/color-scheme'
import { McpPanel } from '../mcp/McpPanel'

type Errors = Partial<Record<keyof Settings | 'apiKey' | 'form', string>>

/** Field errors of `draft` by field name (empty when valid). */
export function settingsErrors(draft: unknown): Errors {
  const r = SettingsSchema.safeParse(draft)
  if (r.success) return {}
  const out: Errors = {}
  for (const i of r.error.issues) {
    const k = String(i.path[0] ?? 'form') as keyof Errors
    out[k] ??= i.message
  }
  return out
}

/** Field errors from a service refusal `saveSettings: settings.<field>: <message>; …`. */
function serverErrors(message: string): Errors {
  const out: Errors = {}
  for (const m of message.matchAll(/settings\.(\w+): ([^;]+)/g)) out[m[1] as keyof Errors] = m[2]?.trim()
  if (Object.keys(out).length === 0) out.form = message
  return out
}

function Field({ label, name, error, children, note }: { label: string; name: string; error?: string; children: React.ReactNode; note?: React.ReactNode }): React.JSX.Element {
  return (
    <label className="settings-field" data-field={name}>
      <span className="settings-label">{label}</span>
      {children}
      {note && <span className="settings-note">{note}</span>}
      {error && (
        <span className="settings-error" data-testid={`settings-error-${name}`} role="alert">
          {error}
        </span>
      )}
    </label>
  )
}

/** The dialog; `onClose` hides it. */
export function SettingsDialog({ onClose }: { onClose(): void }): React.JSX.Element {
  const api = useAppStore((s) => s.handle.api)
  const [view, setView] = useState<SettingsView | null>(null)
  const [draft, setDraft] = useState<Record<string, unknown>>({})
  const [apiKey, setApiKey] = useState('')
  const [errors, setErrors] = useState<Errors>({})
  const [status, setStatus] = useState<string | null>(null)
  const [testing, setTesting] = useState(false)
  const theme = useThemeChoice()

  useEffect(() => {
    api.getSettings({}).then(
      (v) => {
        setView(v)
        // nothing saved but a connection in force (flags or environment): the form shows that one,
        // so it is not empty and "Test connection" tests what is in force (issue 23)
        const fromForce = v.inForce && !v.settings.model && !v.settings.baseUrl && (PROVIDER_NAMES as readonly string[]).includes(v.inForce.provider)
        setDraft({ ...v.settings, ...(fromForce && v.inForce ? { provider: v.inForce.provider, model: v.inForce.model, baseUrl: v.inForce.baseUrl } : {}) })
      },
      (err: unknown) => setErrors({ form: err instanceof Error ? err.message : String(err) })
    )
  }, [api])

  const set = (k: keyof Settings, v: unknown): void => {
    setDraft((d) => ({ ...d, [k]: v }))
    setErrors((e) => ({ ...e, [k]: undefined }))
  }
  const num = (s: string): number | string => (s.trim() === '' || Number.isNaN(Number(s)) ? s : Number(s))
  const keysHere = view && view.keyStorage !== 'environment'

  const save = async (): Promise<void> => {
    const found = settingsErrors(draft)
    setErrors(found)
    if (Object.keys(found).length) return
    try {
      const v = await api.saveSettings({ settings: draft, ...(keysHere && apiKey ? { apiKey } : {}) })
      setView(v)
      setApiKey('')
      setStatus(v.inForceError ? `Saved, but not in force yet: ${v.inForceError}` : `Saved. New sessions use ${v.inForce?.provider} · ${v.inForce?.model}.`)
      void useSessionsStore.getState().refresh()
    } catch (err) {
      setErrors(serverErrors(err instanceof Error ? err.message : String(err)))
    }
  }
  // '' removes the stored key of the provider the form names (the settings are saved with it)
  const removeKey = async (): Promise<void> => {
    const found = settingsErrors(draft)
    setErrors(found)
    if (Object.keys(found).length) return
    try {
      const v = await api.saveSettings({ settings: draft, apiKey: '' })
      setView(v)
      setApiKey('')
      setStatus(v.keySaved ? 'Key removed; a key from the server’s environment is still in use.' : 'Key removed.')
    } catch (err) {
      setErrors(serverErrors(err instanceof Error ? err.message : String(err)))
    }
  }
  const test = async (): Promise<void> => {
    const found = settingsErrors(draft)
    setErrors(found)
    if (Object.keys(found).length) return
    setTesting(true)
    setStatus(null)
    try {
      const r = await api.testConnection({ settings: draft, ...(keysHere && apiKey ? { apiKey } : {}) })
      setStatus(`${r.ok ? '✓' : '✗'} ${r.detail}`)
    } catch (err) {
      setStatus(`✗ ${err instanceof Error ? err.message : String(err)}`)
    } finally {
      setTesting(false)
    }
  }

  const text = (k: keyof Settings, placeholder = ''): React.JSX.Element => (
    <input data-testid={`settings-${k}`} value={String(draft[k] ?? '')} placeholder={placeholder} onChange={(e) => set(k, e.target.value)} spellCheck={false} aria-invalid={Boolean(errors[k])} />
  )
  const select = (k: keyof Settings, values: readonly string[]): React.JSX.Element => (
    <select data-testid={`settings-${k}`} value={String(draft[k] ?? '')} onChange={(e) => set(k, e.target.value)}>
      {values.map((v) => (
        <option key={v} value={v}>
          {v}
        </option>
      ))}
    </select>
  )

  return (
    <div className="dialog-backdrop" onClick={onClose}>
      <div className="dialog settings" role="dialog" aria-modal="true" aria-label="Settings" data-testid="settings-dialog" onClick={(e) => e.stopPropagation()} onKeyDown={(e) => e.key === 'Escape' && onClose()}>
        <h2>Settings</h2>
        {!view && !errors.form && <div className="muted">Loading…</div>}
        {view && (
          <>
            <div className="settings-inforce" data-testid="settings-inforce">
              In force now: {view.inForce ? `${view.inForce.provider} · ${view.inForce.model} · ${view.inForce.baseUrl}` : 'no model connection'}
            </div>
            {view.fileProblems.length > 0 && (
              <div className="settings-error" role="alert" data-testid="settings-file-problems">
                {view.fileProblems.map((p) => (
                  <div key={p}>{p}</div>
                ))}
                <div>Saving here writes what the form shows.</div>
              </div>
            )}
            <div className="settings-grid">
              <Field label="Theme" name="theme" note="This browser or window; applies at once (system: follow the system's light or dark preference).">
                <select data-testid="settings-theme" value={theme} onChange={(e) => setThemeChoice(e.target.value as ThemeChoice)}>
                  {THEME_CHOICES.map((t) => (
                    <option key={t} value={t}>
                      {t}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label="Provider" name="provider" error={errors.provider}>
                {select('provider', PROVIDER_NAMES)}
              </Field>
              <Field label="Model" name="model" error={errors.model}>
                {text('model', 'e.g. qwen2.5-coder:7b (empty: the default / CORTEX_MODEL)')}
              </Field>
              <Field label="Base URL" name="baseUrl" error={errors.baseUrl}>
                {text('baseUrl', 'e.g. http://127.0.0.1:11434/v1 (empty: the provider default)')}
              </Field>
              <Field
                label="API key"
                name="apiKey"
                error={errors.apiKey}
                note={
                  view.keyStorage === 'environment'
                    ? "Keys come only from the server's environment here (ANTHROPIC_API_KEY, OPENAI_API_KEY or CORTEX_API_KEY where Cortex runs)."
                    : view.keyStorage === 'basic_text'
                      ? 'No system keyring was found: the key is stored with Electron’s basic_text fallback, which is effectively plain text on this disk.'
                      : view.keyStorage === 'file'
                        ? 'Stored on the server in Cortex’s data folder (a file only its user can read); it is never sent back to this browser.'
                        : 'Stored encrypted with the system keychain (safeStorage).'
                }
              >
                {keysHere ? (
                  <span className="settings-key">
                    <input type="password" data-testid="settings-apiKey" autoComplete="off" value={apiKey} placeholder={view.keySaved ? 'a key is stored (type to replace it)' : 'no key stored'} onChange={(e) => setApiKey(e.target.value)} />
                    {view.keySaved && view.keyStorage === 'file' && (
                      <button data-testid="settings-key-remove" onClick={() => void removeKey()}>
                        Remove key
                      </button>
                    )}
                  </span>
                ) : (
                  <span className="settings-static" data-testid="settings-key-env">{view.keySaved ? 'a key is set in the environment' : 'no key in the environment'}</span>
                )}
              </Field>
              <Field label="Guest image" name="guestImage" error={errors.guestImage} note="Applies at the next start.">
                {text('guestImage', 'empty: the built-in image')}
              </Field>
              <Field
                label="Dependency folders in volumes"
                name="dependencyVolumes"
                error={errors.dependencyVolumes}
                note="node_modules, .venv, target in Docker volumes instead of the repository's tree. auto: where the host is not Linux. Per repository: cortex guest setup --dependency-volumes; the guest's start says which applies. Applies at the next guest start."
              >
                {select('dependencyVolumes', ['auto', 'on', 'off'])}
              </Field>
              <Field label="Sandbox (new sessions)" name="sandbox" error={errors.sandbox}>
                {select('sandbox', SANDBOX_POLICIES)}
              </Field>
              <Field label="Approval policy" name="approvalPolicy" error={errors.approvalPolicy}>
                {select('approvalPolicy', APPROVAL_POLICIES)}
              </Field>
              <Field label="Warm guests" name="warmPool" error={errors.warmPool} note="0–8; applies at the next start.">
                <input data-testid="settings-warmPool" inputMode="numeric" value={String(draft.warmPool ?? '')} onChange={(e) => set('warmPool', num(e.target.value))} aria-invalid={Boolean(errors.warmPool)} />
              </Field>
              <Field label="Stream idle timeout (s)" name="streamIdleTimeoutS" error={errors.streamIdleTimeoutS} note="Applies at the next start.">
                <input data-testid="settings-streamIdleTimeoutS" inputMode="numeric" value={String(draft.streamIdleTimeoutS ?? '')} onChange={(e) => set('streamIdleTimeoutS', num(e.target.value))} aria-invalid={Boolean(errors.streamIdleTimeoutS)} />
              </Field>
              <Field label="Context window (tokens)" name="contextWindow" error={errors.contextWindow} note="0: the built-in table for the model; applies at the next start.">
                <input data-testid="settings-contextWindow" inputMode="numeric" value={String(draft.contextWindow ?? '')} onChange={(e) => set('contextWindow', num(e.target.value))} aria-invalid={Boolean(errors.contextWindow)} />
              </Field>
              <Field label="Compact at (% of the window)" name="compactThresholdPct" error={errors.compactThresholdPct} note="10–100; applies at the next start.">
                <input data-testid="settings-compactThresholdPct" inputMode="numeric" value={String(draft.compactThresholdPct ?? '')} onChange={(e) => set('compactThresholdPct', num(e.target.value))} aria-invalid={Boolean(errors.compactThresholdPct)} />
              </Field>
              <Field label="MCP schema budget" name="mcpSchemaBudget" error={errors.mcpSchemaBudget} note="Past it, MCP tools' schemas wait behind a search tool. Tokens (20000), a share (0.1) or a percentage (10%); applies at the next start.">
                {text('mcpSchemaBudget', 'empty: 10% of the context window')}
              </Field>
            </div>
            <div className="muted">Settings file: {view.file}</div>
            <McpPanel />
          </>
        )}
        {errors.form && (
          <div className="settings-error" role="alert" data-testid="settings-error-form">
            {errors.form}
          </div>
        )}
        {status && (
          <div className="settings-status" role="status" data-testid="settings-status">
            {status}
          </div>
        )}
        <div className="dialog-actions">
          <button data-testid="settings-test" onClick={() => void test()} disabled={!view || testing}>
            {testing ? 'Testing…' : 'Test connection'}
          </button>
          <span style={{ flex: 1 }} />
          <button onClick={onClose}>Close</button>
          <button className="primary" data-testid="settings-save" onClick={() => void save()} disabled={!view}>
            Save
          </button>
        </div>
      </div>
    </div>
  )
}
