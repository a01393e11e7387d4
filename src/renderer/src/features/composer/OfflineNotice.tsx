/**
 * The composer while the page is not connected to Cortex (issue 23, item 4): Send keeps the message
 * in the box and holds it; a notice says so; when the connection is back the held message is sent
 * once (the composer's own submit, so a failure puts it back as usual). "Don't send" cancels the hold.
 */
import { useEffect, useRef, useState } from 'react'
import { useAppStore } from '../../store/app-store'

/** The hold of a message written while disconnected. */
export interface OfflineHold {
  /** The page's socket (or bridge) is open: a send goes out now. */
  connected: boolean
  /** A message is waiting in the composer for the connection. */
  held: boolean
  /** Hold the composer's message until the connection is back. */
  hold(): void
  /** Keep the message in the composer but do not send it on reconnect. */
  cancel(): void
}

/** Track the connection; call `sendNow` once when it opens again with a message held. */
export function useOfflineHold(sendNow: () => void): OfflineHold {
  const connected = useAppStore((s) => s.connection === 'open')
  const [held, setHeld] = useState(false)
  const send = useRef(sendNow)
  send.current = sendNow
  useEffect(() => {
    if (connected && held) {
      setHeld(false)
      send.current()
    }
  }, [connected, held])
  return { connected, held, hold: () => setHeld(true), cancel: () => setHeld(false) }
}

/** The notice above the composer while disconnected; nothing when connected. */
export function OfflineNotice({ hold }: { hold: OfflineHold }): React.JSX.Element | null {
  if (hold.connected) return null
  return (
    <div className="composer-offline" data-testid="composer-offline" data-held={hold.held} role="status">
      {hold.held ? (
        <>
          <span>Not connected to Cortex. Your message stays here and is sent when the connection is back.</span>
          <button className="link" data-testid="composer-offline-cancel" onClick={hold.cancel}>
            Don&apos;t send
          </button>
        </>
      ) : (
        <span>Not connected to Cortex. A message you send now waits here until the connection is back.</span>
      )}
    </div>
  )
}
