//! What a flight's Redis entry holds, and the Lua scripts that change it atomically.
//!
//! - `P:<flight>` while a call runs: the claim, lapsing after the lock if its instance dies;
//! - `D:<flight>:<sealed outcome>` for the grace window after a kept (successful) outcome;
//! - `F:<flight>:<sealed outcome>` briefly after any other outcome, for its waiters;
//! - `R:<flight>` after a claim whose answer was lost: given up, so that the claim, should it
//!   land late, takes nothing.

/// Takes the entry when it is absent, holds a failure or a given-up claim; otherwise answers
/// what it holds. A claim that was given up before it arrived (`R:` with its own flight) does
/// not take the entry.
pub(super) const CLAIM: &str = r"
local v = redis.call('GET', KEYS[1])
if v == 'R' .. string.sub(ARGV[1], 2) then
  return v
end
local tag = v and string.sub(v, 1, 2)
if (not v) or tag == 'F:' or tag == 'R:' then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return false
end
return v
";

/// Gives up the claim `ARGV[1]` (`P:<flight>`) whose answer was lost: removes it if it landed;
/// if the entry is empty, leaves `R:<flight>` for `ARGV[2]` ms so that the claim, should it
/// land later, takes nothing. Anything else (another claim, an outcome) is left alone.
pub(super) const RELEASE: &str = r"
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
if not v then
  redis.call('SET', KEYS[1], 'R' .. string.sub(ARGV[1], 2), 'PX', ARGV[2])
  return 2
end
return 0
";

/// Takes the entry if it still holds `ARGV[1]` (an outcome past its sealed expiry), or
/// holds `ARGV[2]` already (the same command, sent again after a dropped connection).
pub(super) const TAKE_STALE: &str = r"
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] or v == ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
";

/// Stores an outcome unless another instance claimed the entry since (its claim lapsed). A
/// given-up claim (`R:`, any flight) leaves the entry free, as for [`CLAIM`]: an outcome kept
/// while Redis was away is stored over the marker a give-up left once Redis came back.
pub(super) const PUBLISH: &str = r"
local v = redis.call('GET', KEYS[1])
if (not v) or v == ARGV[1] or v == ARGV[2] or string.sub(v, 1, 2) == 'R:' then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
";

/// What an entry holds.
pub(super) enum Entry {
    Pending(String),
    Done(String),
    Failed(String, String),
    /// A claim given up: as good as empty.
    Released,
}

pub(super) fn parse(value: &str) -> Option<Entry> {
    let (tag, rest) = value.split_at_checked(2)?;
    match tag {
        "P:" => Some(Entry::Pending(rest.to_owned())),
        "R:" => Some(Entry::Released),
        "D:" | "F:" => {
            let (flight, sealed) = rest.split_once(':')?;
            let (flight, sealed) = (flight.to_owned(), sealed.to_owned());
            Some(if tag == "D:" {
                Entry::Done(sealed)
            } else {
                Entry::Failed(flight, sealed)
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse() {
        assert!(matches!(parse("P:ab"), Some(Entry::Pending(f)) if f == "ab"));
        assert!(matches!(parse("D:ab:x:y"), Some(Entry::Done(s)) if s == "x:y"));
        assert!(matches!(parse("F:ab:z"), Some(Entry::Failed(f, s)) if f == "ab" && s == "z"));
        assert!(matches!(parse("R:ab"), Some(Entry::Released)));
        assert!(parse("D:nocolon").is_none());
        assert!(parse("X:ab").is_none());
        assert!(parse("").is_none());
    }
}
