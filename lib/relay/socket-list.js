// The sockets a relay keeps track of (its open sockets, those in their
// handshake, those half-closed, those awaiting keep-alive), as a list that
// forgets a socket without a trace: each node is unlinked and emptied when
// its socket leaves.
//
// Why not a Set: V8 replaces a Set's table as entries come and go, and the
// table it replaced keeps its entries, and a pointer to its successor,
// until the next mark-compact. An old table names sockets that were young
// when it was replaced; a scavenge keeps what old objects point to, dead or
// not, so those sockets, and everything their connections reach, outlive
// it and are promoted in turn. With four such Sets churned per connection
// the relay server promoted 10 to 12 KB of every new connection on Node 22,
// 5 to 8 KB with these lists (docs/notes/gc-promotion.md). A removed node
// points at nothing, so an old one keeps nothing young alive.
export function createSocketList() {
  const head = { item: null, prev: null, next: null };
  head.prev = head;
  head.next = head;
  let size = 0;
  const empty = (node) => {
    node.item = null;
    node.prev = null;
    node.next = null;
  };
  const remove = (node) => {
    if (node.next === null) return;
    node.prev.next = node.next;
    node.next.prev = node.prev;
    empty(node);
    size -= 1;
  };
  return {
    // Returns the node to pass to remove(): the caller keeps it.
    add(item) {
      const node = { item, prev: head.prev, next: head };
      head.prev.next = node;
      head.prev = node;
      size += 1;
      return node;
    },
    // A node removed already (or cleared) is left as it is.
    remove,
    // Removes the oldest and returns it, or null when the list is empty.
    shift() {
      const node = head.next;
      if (node === head) return null;
      const { item } = node;
      remove(node);
      return item;
    },
    get size() {
      return size;
    },
    // What the list holds, oldest first, as an array: what the caller then
    // does with each may remove it.
    items() {
      const items = [];
      for (let node = head.next; node !== head; node = node.next) items.push(node.item);
      return items;
    },
    clear() {
      for (let node = head.next; node !== head;) {
        const next = node.next;
        empty(node);
        node = next;
      }
      head.prev = head;
      head.next = head;
      size = 0;
    },
  };
}
