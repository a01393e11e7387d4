/** Monaco language ids by file extension, for the diff view of changed files. */
const LANGS: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript',
  json: 'json', md: 'markdown', py: 'python', rs: 'rust', go: 'go', sh: 'shell', css: 'css', html: 'html',
  yml: 'yaml', yaml: 'yaml', java: 'java', c: 'c', h: 'c', cpp: 'cpp', rb: 'ruby'
}

/** The Monaco language of `path` (by extension), `plaintext` when unknown. */
export function languageOf(path: string): string {
  return LANGS[path.split('.').pop()?.toLowerCase() ?? ''] ?? 'plaintext'
}
