/**
 * What the browser page shows instead of a dead UI when it cannot talk to Cortex for good: opened
 * without its `?token=` (the address was copied without it), or with a token the server refuses
 * (stale: the server was restarted and printed a new address).
 */
/** The explanation page; `reason` says which case this is. */
export function TokenPage({ reason }: { reason: 'missing' | 'stale' }): React.JSX.Element {
  return (
    <main className="token-page" data-testid="token-page" data-reason={reason} role="main">
      <h1>Cortex Code</h1>
      {reason === 'missing' ? (
        <p data-testid="token-explanation">
          This address has no access token, so the page cannot connect to Cortex.
        </p>
      ) : (
        <p data-testid="token-explanation">
          The access token in this address is not valid for the Cortex server running now: the server was probably
          restarted, and each start prints a new address.
        </p>
      )}
      <p>
        Reopen the address that <code>cortex serve</code> printed in its terminal — the whole line, including{' '}
        <code>?token=…</code>. If the server is no longer running, start it again with <code>cortex serve</code>.
      </p>
    </main>
  )
}
