/**
 * The per-repository store of Always (allow) and deny rules, in the data folder — never in the
 * repository: `<dataDir>/approvals/<sha256(repo) prefix>.json` holding `{ repo, rules }`. The file is
 * read at every check (a rule removed by `cortex rules remove` in another process applies at once)
 * and replaced atomically (temporary file + rename) at every change.
 */
import { createHash, randomUUID } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { ApprovalRuleSchema, type ApprovalRule } from '../../../shared/approvals'
import { CortexError } from '../../../shared/errors'

const RulesFileSchema = z.object({ repo: z.string(), rules: z.array(ApprovalRuleSchema) })

/** Most rules kept per repository (adding past it fails with `invalid_input`). */
export const MAX_RULES_PER_REPO = 500

/** Rules of each repository, stored under one data folder. */
export class ApprovalRulesStore {
  /** @param dataDir the data folder (CORTEX_HOME or the app's userData); rules go under `approvals/` */
  constructor(private readonly dataDir: string) {}

  /** The rules file of `repo` (absolute host path). */
  fileOf(repo: string): string {
    const key = createHash('sha256').update(repo).digest('hex').slice(0, 24)
    return join(this.dataDir, 'approvals', `${key}.json`)
  }

  /**
   * The rules of `repo`, oldest first; none when the file is missing. An unreadable or invalid file
   * reads as no rules (so it can only make Cortex ask more, never less).
   */
  list(repo: string): ApprovalRule[] {
    let text: string
    try {
      text = readFileSync(this.fileOf(repo), 'utf8')
    } catch {
      return [] // missing (or unreadable): no rules
    }
    try {
      const parsed = RulesFileSchema.safeParse(JSON.parse(text))
      return parsed.success && parsed.data.repo === repo ? parsed.data.rules : []
    } catch {
      return [] // not JSON: no rules
    }
  }

  /**
   * Add a rule for `repo` (an identical tool + kind + pattern rule is returned instead of added twice).
   * @returns the stored rule
   * @throws CortexError('invalid_input') past {@link MAX_RULES_PER_REPO}; 'internal' when the file cannot be written
   */
  add(repo: string, rule: Pick<ApprovalRule, 'tool' | 'kind' | 'pattern'>): ApprovalRule {
    const rules = this.list(repo)
    const same = rules.find((r) => r.tool === rule.tool && r.kind === rule.kind && r.pattern === rule.pattern)
    if (same) return same
    if (rules.length >= MAX_RULES_PER_REPO) throw new CortexError('invalid_input', `this repository has ${rules.length} rules, the most kept; remove some first`)
    const stored: ApprovalRule = { id: randomUUID().slice(0, 8), ...rule, ...(rule.pattern ? { pattern: rule.pattern } : {}), createdAt: Date.now() }
    if (!stored.pattern) delete stored.pattern
    this.write(repo, [...rules, stored])
    return stored
  }

  /**
   * Remove rule `id` of `repo`.
   * @throws CortexError('invalid_input') when no rule of the repository has that id
   */
  remove(repo: string, id: string): void {
    const rules = this.list(repo)
    const kept = rules.filter((r) => r.id !== id)
    if (kept.length === rules.length) throw new CortexError('invalid_input', `no rule with id ${id} for ${repo}`)
    this.write(repo, kept)
  }

  private write(repo: string, rules: ApprovalRule[]): void {
    const file = this.fileOf(repo)
    try {
      mkdirSync(join(this.dataDir, 'approvals'), { recursive: true, mode: 0o700 })
      const tmp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`
      writeFileSync(tmp, JSON.stringify({ repo, rules }, null, 2) + '\n', { mode: 0o600 })
      renameSync(tmp, file)
    } catch (err) {
      throw new CortexError('internal', `cannot save approval rules to ${file}: ${(err as Error).message}`, { cause: err })
    }
  }
}
