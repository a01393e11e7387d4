/**
 * Messages keep the order they were typed in while an MCP prompt is being fetched (ADR 0032): a
 * message typed after `/mcp__SERVER__PROMPT` waits until the prompt was delivered (or failed) before
 * it is expanded and delivered; one typed before a Stop that ended such a wait is not sent, and the
 * user is told. Without a prompt in flight a message is delivered at once, as before.
 */

/** What a message becomes once delivered: its text, images and command (session.ts `deliver`). */
export type Deliver = () => void

/** The ordering of one session's messages around MCP prompt fetches. */
export class MessageOrder {
  private tail: Promise<void> | null = null
  private stops = 0

  /** @param told tells the user a message was not sent because of a Stop (its first line) */
  constructor(private readonly told: (line: string) => void) {}

  /**
   * Deliver a message in order. `fetching` is its MCP prompt's fetch (resolving to how to deliver
   * it), or undefined for any other message (`now` delivers it).
   * @returns undefined when it was delivered at once; else a promise of its delivery that rejects as
   *   the fetch or the delivery does (a Stop's AbortError is not a failure: nothing is sent, the user is told)
   */
  submit(typed: string, fetching: Promise<Deliver> | undefined, now: Deliver): void | Promise<void> {
    const before = this.tail
    if (!fetching && !before) {
      now()
      return
    }
    const stops = this.stops
    const run = async (): Promise<void> => {
      await before
      let deliver: Deliver = now
      try {
        if (fetching) deliver = await fetching
      } catch (err) {
        if ((err as Error | undefined)?.name !== 'AbortError') throw err
        return this.told(typed)
      }
      if (this.stops !== stops) return this.told(typed) // Stop came while it waited: nothing queued runs after a Stop
      deliver()
    }
    const done = run()
    const settled = done.then(() => undefined, () => undefined)
    this.tail = settled
    void settled.then(() => {
      if (this.tail === settled) this.tail = null
    })
    return done
  }

  /** Stop: the messages waiting now are not sent (their prompt fetches are aborted by the caller). */
  stop(): void {
    this.stops += 1
  }
}
