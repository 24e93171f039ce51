//! The cap on open connections, one policy for the HTTP server and the
//! embedded broker's front: at most `cap` open; when all are taken, a
//! newcomer takes the place of the one idle longest, and a connection
//! that is not idle (a request being answered, a client logged in) is
//! never closed for it. Only when none is idle is the newcomer refused.
//!
//! What "idle" means, and since when, is each user's to say: the server's
//! connections are idle while it waits on the client, since the client's
//! last byte ([`super::conn::Conn::last_heard`]); the broker's while not
//! logged in yet, the oldest first. The table only keeps the connections
//! and picks; closing the one picked is its owner's work.

use std::collections::HashMap;

/// The open connections, each under the id [`Capped::admit`] gave it.
#[derive(Debug)]
pub struct Capped<T> {
    open: HashMap<u64, T>,
    next: u64,
}

impl<T> Default for Capped<T> {
    fn default() -> Capped<T> {
        Capped {
            open: HashMap::new(),
            next: 0,
        }
    }
}

/// A connection let in: its id, and the connections taken out to make
/// room for it (their owners close them).
#[derive(Debug, PartialEq, Eq)]
pub struct Admitted<T> {
    pub id: u64,
    pub evicted: Vec<T>,
}

impl<T> Capped<T> {
    /// Lets `conn` in under `cap` (at least one), taking out, while the
    /// table is full, the connection idle longest: the least `idle_since`
    /// of its id and itself (`None`: not idle, never taken out), ties to
    /// the oldest id. `None` when the table is full and none is idle: then
    /// nothing is taken out.
    pub fn admit<K: Ord>(
        &mut self,
        conn: T,
        cap: usize,
        idle_since: impl Fn(u64, &T) -> Option<K>,
    ) -> Option<Admitted<T>> {
        let cap = cap.max(1);
        let mut evicted = Vec::new();
        while self.open.len() >= cap {
            let idlest = self
                .open
                .iter()
                .filter_map(|(id, c)| idle_since(*id, c).map(|since| (since, *id)))
                .min();
            let Some((_, id)) = idlest else {
                // Put back what went: the newcomer is refused, not them.
                for (id, c) in evicted {
                    self.open.insert(id, c);
                }
                return None;
            };
            if let Some(c) = self.open.remove(&id) {
                evicted.push((id, c));
            }
        }
        let id = self.next;
        self.next += 1;
        self.open.insert(id, conn);
        Some(Admitted {
            id,
            evicted: evicted.into_iter().map(|(_, c)| c).collect(),
        })
    }

    /// Takes connection `id` out (it closed); `None` if it is not in (it
    /// was taken out to make room).
    pub fn remove(&mut self, id: u64) -> Option<T> {
        self.open.remove(&id)
    }

    /// Connection `id`, unless it was taken out.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut T> {
        self.open.get_mut(&id)
    }

    /// Connections open.
    pub fn len(&self) -> usize {
        self.open.len()
    }

    /// Whether none is open.
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection: its name and since when it is idle (`None`: busy).
    type Conn = (&'static str, Option<u32>);

    fn idle(_: u64, c: &Conn) -> Option<u32> {
        c.1
    }

    #[test]
    fn under_the_cap_all_come_in() {
        let mut t = Capped::default();
        for n in 0..3 {
            let a = t.admit(("c", Some(n)), 3, idle).unwrap();
            assert_eq!((a.id, a.evicted), (u64::from(n), vec![]));
        }
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn a_full_table_gives_the_place_of_the_longest_idle_never_a_busy_one() {
        let mut t = Capped::default();
        t.admit(("busy", None), 3, idle).unwrap();
        t.admit(("idle since 5", Some(5)), 3, idle).unwrap();
        let quiet = t.admit(("idle since 2", Some(2)), 3, idle).unwrap().id;
        let a = t.admit(("new", Some(9)), 3, idle).unwrap();
        assert_eq!(a.evicted, vec![("idle since 2", Some(2))]);
        assert_eq!(t.len(), 3);
        assert!(t.remove(quiet).is_none(), "taken out already");
        // Ties go to the oldest.
        let mut t = Capped::default();
        let first = t.admit(("a", Some(1)), 2, idle).unwrap().id;
        t.admit(("b", Some(1)), 2, idle).unwrap();
        t.admit(("c", Some(1)), 2, idle).unwrap();
        assert!(t.get_mut(first).is_none());
    }

    #[test]
    fn when_none_is_idle_the_newcomer_is_refused_and_nobody_goes() {
        let mut t = Capped::default();
        let a = t.admit(("a", None), 2, idle).unwrap().id;
        t.admit(("b", None), 2, idle).unwrap();
        assert!(t.admit(("c", Some(0)), 2, idle).is_none());
        assert_eq!(t.len(), 2);
        // One closes: a place is free.
        t.remove(a).unwrap();
        assert!(t.admit(("c", Some(0)), 2, idle).is_some());
        // Once idle (here: by the owner's say), it may make room.
        let mut t = Capped::default();
        let b = t.admit(("b", None), 1, idle).unwrap().id;
        t.get_mut(b).unwrap().1 = Some(7);
        assert_eq!(
            t.admit(("d", None), 1, idle).unwrap().evicted,
            vec![("b", Some(7))]
        );
    }

    #[test]
    fn the_idle_order_may_be_the_order_of_arrival() {
        // As the broker's front: any not logged in, the oldest first.
        let mut t = Capped::default();
        let by_arrival = |id: u64, c: &Conn| c.1.map(|_| id);
        t.admit(("first", Some(9)), 2, by_arrival).unwrap();
        t.admit(("second", Some(0)), 2, by_arrival).unwrap();
        let a = t.admit(("third", Some(5)), 2, by_arrival).unwrap();
        assert_eq!(a.evicted, vec![("first", Some(9))]);
    }
}
