/**
 * Skills as an extension (ADR 0036): the user's skills (CORTEX_HOME/skills) are usable at once; the
 * repository's (`.cortex/skills`, `.claude/skills`) only while the user has enabled them (trust key
 * `skills`, a hash over every file of their folders, so a change — the model's included — disables
 * them until the user looks again). The system prompt gets only names and descriptions (capped:
 * skills-section.ts); the `skill` tool loads a body on demand, re-checking the trust at that moment.
 */
import type { TrustItem } from '../../../shared/extensions'
import type { ToolDefinition } from '../../tools/tool'
import { readRepoFile } from '../repo-file'
import type { ExtensionContext, ExtensionProvider } from '../types'
import { filesHash } from '../commands/session-commands'
import { scanSkills, type SkillFile, type SkillScan } from './skill-files'
import { skillsSection } from './skills-section'
import { skillTool } from './skill-tool'

/** The trust store key of a repository's skills. */
export const SKILLS_TRUST_KEY = 'skills'
/** Longest trust card detail (characters): the skills' instructions in full up to this. */
const MAX_DETAIL_CHARS = 20_000
/** The context window assumed when the session names none (tokens). */
const DEFAULT_WINDOW = 128_000

/** One scan and what the trust store says of it. */
interface SkillsState {
  scan: SkillScan
  hash: string | null
  enabled: boolean
}

/** See the module comment. */
export class SkillsProvider implements ExtensionProvider {
  readonly name = 'skills'
  private state: SkillsState
  private readonly told = new Set<string>()
  private readonly tool: ToolDefinition

  /** @param ctx the session's extension context */
  constructor(private readonly ctx: ExtensionContext) {
    this.state = this.rescan()
    this.tool = skillTool({
      skills: () => {
        // read again at the call: a SKILL.md changed since the turn began is not loaded unseen
        this.state = this.rescan()
        const withheld = this.state.hash && !this.state.enabled ? "The repository's skills are not enabled (or changed since the user enabled them): the user has to enable them first." : undefined
        return { skills: this.usable(), ...(withheld ? { withheld } : {}) }
      }
    })
  }

  private rescan(): SkillsState {
    const scan = scanSkills(this.ctx.repo, this.ctx.home, (rel) => readRepoFile(this.ctx.repo, rel))
    for (const n of scan.notices) this.tell(n)
    const hash = scan.repoFiles.length ? filesHash(scan.repoFiles) : null
    return { scan, hash, enabled: hash !== null && (this.ctx.trust?.isTrusted(this.ctx.repo, SKILLS_TRUST_KEY, hash) ?? false) }
  }

  /** The skills usable now: the user's, and the repository's while enabled. */
  private usable(): Map<string, SkillFile> {
    const { scan, enabled } = this.state
    return new Map([...scan.skills].filter(([, s]) => s.source === 'user' || enabled))
  }

  /** {@link ExtensionProvider.tools}: `skill` while any skill is usable. */
  tools(): readonly ToolDefinition[] {
    return this.usable().size > 0 ? [this.tool] : []
  }

  /** {@link ExtensionProvider.promptSections}: the names and descriptions, capped at a share of the context window. */
  promptSections(): readonly string[] {
    const skills = [...this.usable().values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const section = skillsSection(skills, this.ctx.contextWindow ?? DEFAULT_WINDOW)
    if (!section) return []
    if (section.leftOut > 0) this.tell(`${section.leftOut} of ${skills.length} skills were left out of the system prompt (their list may take about 2% of the context window); the model can still load them by name`)
    return [section.text]
  }

  /** {@link ExtensionProvider.trustItems}: the repository's skills while not enabled at their current content. */
  trustItems(): readonly TrustItem[] {
    const { scan, hash, enabled } = this.state
    if (!hash || enabled) return []
    const repoSkills = [...scan.skills.values()].filter((s) => s.source === 'repository')
    // what the model may load: each SKILL.md's instructions in full up to a cap, and the folder's files
    let detail = [
      `Skills from ${[...new Set(scan.repoFiles.map((f) => f.rel.split('/').slice(0, 3).join('/')))].join(', ')}: ${scan.repoFiles.map((f) => f.rel).join(', ')}. Their names and descriptions join the system prompt; the model may load any of them as instructions:`,
      ...repoSkills.map((s) => [`${s.name} — ${s.description}`, ...s.body.split('\n').map((l) => `    ${l}`)].join('\n'))
    ].join('\n')
    if (detail.length > MAX_DETAIL_CHARS) detail = `${detail.slice(0, MAX_DETAIL_CHARS)}\n… ${detail.length - MAX_DETAIL_CHARS} more characters: read the files themselves before enabling them`
    const state = this.ctx.trust?.wasTrusted(this.ctx.repo, SKILLS_TRUST_KEY) ? 'changed' : 'new'
    return [{ key: SKILLS_TRUST_KEY, kind: 'skills', title: `${repoSkills.length} skill${repoSkills.length === 1 ? '' : 's'} from the repository`, detail, hash, state }]
  }

  /** {@link ExtensionProvider.turnStarting}: read the folders again. */
  turnStarting(): Promise<void> {
    this.state = this.rescan()
    return Promise.resolve()
  }

  /** {@link ExtensionProvider.onTrustChanged}: the user's decision takes effect now. */
  onTrustChanged(): Promise<void> {
    this.state = this.rescan()
    return Promise.resolve()
  }

  private tell(message: string): void {
    if (this.told.has(message)) return
    this.told.add(message)
    this.ctx.emit({ type: 'extension_notice', kind: 'skills', message })
  }
}
