// Child-process helper for lock tests: opens session <id> of <dataDir> (taking its lock), prints
// "locked <pid>" and waits until killed. Run with `node --import tsx test/support/hold-session-lock.ts <dataDir> <id>`.
import { SessionStore } from '../../src/main/store/session-store'

const [dataDir, id] = process.argv.slice(2)
if (!dataDir || !id) throw new Error('usage: hold-session-lock.ts <dataDir> <sessionId>')
new SessionStore(dataDir).openLog(id)
process.stdout.write(`locked ${process.pid}\n`)
setInterval(() => undefined, 60_000)
