/**
 * Validation of mermaid diagram source with mermaid's own parser (`mermaid.parse`) in the main
 * process under Node, for the plan tool.
 *
 * mermaid 12.3.0 imports and parses under Node 20 without a DOM, except that diagram text is passed
 * through DOMPurify, which without a `window` is a stub lacking `sanitize` and `addHook` (any label,
 * e.g. `A[Start]`, then throws "DOMPurify.addHook is not a function"). The minimal shim: when that
 * stub is what mermaid gets, give it an identity `sanitize` and a no-op `addHook`. That is sound
 * here because we only validate: nothing parsed in Node is rendered (the renderer, in a browser,
 * renders with a real DOMPurify). No global `window`/`document` is installed. Both modules are
 * imported lazily (mermaid is large) and parses are serialised (mermaid keeps per-diagram state).
 */

/** The outcome of {@link validateMermaid}. */
export type MermaidCheck = { ok: true; diagramType: string } | { ok: false; message: string }

type ParseFn = (text: string) => Promise<{ diagramType: string } | false>

let parser: Promise<ParseFn> | undefined
let queue: Promise<unknown> = Promise.resolve()

/** Load DOMPurify (shimmed when it is the window-less stub) and mermaid, once. */
function loadParser(): Promise<ParseFn> {
  parser ??= (async () => {
    const purifyModule = await import('dompurify')
    const purify = purifyModule.default as unknown as Record<string, unknown>
    if (typeof purify.sanitize !== 'function') purify.sanitize = (dirty: unknown) => (typeof dirty === 'string' ? dirty : String(dirty))
    if (typeof purify.addHook !== 'function') purify.addHook = () => undefined
    const mermaid = (await import('mermaid')).default
    return (text: string) => mermaid.parse(text)
  })()
  // a failed load is retried at the next call; the caller of this load gets the error itself
  parser.catch(() => {
    parser = undefined
  })
  return parser
}

/**
 * Parse `source` with mermaid's parser.
 * @param source mermaid diagram text (e.g. `flowchart TD\n  A --> B`)
 * @returns `{ ok: true, diagramType }` (e.g. `flowchart-v2`, `sequence`) or `{ ok: false, message }`
 *   with the parser's message (line, position and expected tokens when mermaid gives them)
 * @throws when mermaid cannot be loaded or fails internally (TypeError/ReferenceError), never for a bad diagram
 */
export async function validateMermaid(source: string): Promise<MermaidCheck> {
  const parse = await loadParser()
  const run = queue.then(async (): Promise<MermaidCheck> => {
    try {
      const r = await parse(source)
      if (r === false) return { ok: false, message: 'mermaid could not parse the diagram.' }
      return { ok: true, diagramType: r.diagramType }
    } catch (err) {
      // A TypeError/ReferenceError is mermaid failing to run (e.g. the DOMPurify shim not reaching
      // mermaid's copy), not a problem with the diagram: surface it as an infrastructure error.
      if (err instanceof TypeError || err instanceof ReferenceError) throw err
      const msg = err instanceof Error ? err.message : String(err)
      return { ok: false, message: msg || 'mermaid could not parse the diagram.' }
    }
  })
  queue = run.catch(() => undefined) // the queue only orders runs; `run` itself rejects to its caller
  return run
}
