//! `defrag --watch`: the EtcdDefrag controller, behaving as the
//! etcd-operator's own (operator contract §5). The decisions live in
//! [`phase`], a pure state machine over plain observations with `now` as an
//! input, so every edge is a table test; the reconciler around it only
//! gathers the facts `phase::next` asks for and performs the one transition
//! it names, calling the same engine (`exec::run`) as the one-shot `defrag`.

pub mod phase;
