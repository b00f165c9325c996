use super::*;

const V35: &[u8] = include_bytes!("../../../tests/fixtures/snapshot-v3.5.db");
const V35_STATUS: &str = include_str!("../../../tests/fixtures/snapshot-v3.5.status.json");
const V36: &[u8] = include_bytes!("../../../tests/fixtures/snapshot-v3.6.db");
const V36_STATUS: &str = include_str!("../../../tests/fixtures/snapshot-v3.6.status.json");

fn crc32c(bytes: &[u8]) -> u32 {
    let mut c = Crc32c::new();
    c.update(bytes);
    c.finish()
}

#[test]
fn crc32c_known_answers() {
    assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    assert_eq!(crc32c(b""), 0);
    // RFC 3720 B.4: 32 bytes of zeros.
    assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
    let mut split = Crc32c::new();
    split.update(b"1234");
    split.update(b"");
    split.update(b"56789");
    assert_eq!(split.finish(), 0xE306_9283);
}

#[test]
fn fnv1a64_known_answers() {
    assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
}

#[test]
fn fixture_meta_pages_pass_their_checksum() {
    for file in [V35, V36] {
        let m0 = parse_meta(file).expect("meta 0");
        let m1 = parse_meta(&file[m0.page_size as usize..]).expect("meta 1");
        assert_eq!(m0.page_size, m1.page_size);
    }
}

/// The etcdutl output recorded next to a fixture, as a `DbStatus`.
fn recorded(json: &str) -> DbStatus {
    let v: serde_json::Value = serde_json::from_str(json).expect("status json");
    DbStatus {
        hash: u32::try_from(v["hash"].as_u64().expect("hash")).expect("u32 hash"),
        revision: v["revision"].as_i64().expect("revision"),
        total_keys: v["totalKey"].as_u64().expect("totalKey"),
        live_keys: 0,
        total_size: v["totalSize"].as_u64().expect("totalSize"),
        storage_version: v
            .get("version")
            .and_then(|v| v.as_str())
            .filter(|v| !v.is_empty())
            .map(str::to_string),
    }
}

// The same file gives a different totalKey under etcdutl 3.5 and 3.6:
// 3.5 counts every entry of every top-level bucket (what `total_keys`
// is), 3.6 counts the live user keys in the `key` bucket. Hash,
// revision and size agree, so each fixture is checked against both.
const V35_BY_UTL36: &str =
    include_str!("../../../tests/fixtures/snapshot-v3.5.etcdutl-v3.6.status.json");
const V36_BY_UTL35: &str =
    include_str!("../../../tests/fixtures/snapshot-v3.6.etcdutl-v3.5.status.json");

/// Both etcdutl releases agree with `status` on everything but the key
/// count, which each takes from a different field.
fn matches_both(file: &[u8], by_utl35: &str, by_utl36: &str) {
    let ours = status(file).expect("status");
    let (utl35, utl36) = (recorded(by_utl35), recorded(by_utl36));
    assert_eq!(
        ours.total_keys, utl35.total_keys,
        "etcdutl 3.5 counts entries"
    );
    assert_eq!(
        ours.live_keys, utl36.total_keys,
        "etcdutl 3.6 counts live keys"
    );
    for theirs in [utl35, utl36] {
        assert_eq!(
            (ours.hash, ours.revision, ours.total_size),
            (theirs.hash, theirs.revision, theirs.total_size)
        );
    }
    assert!(ours.live_keys < ours.total_keys);
}

#[test]
fn fixture_v3_5_status_matches_etcdutl() {
    matches_both(V35, V35_STATUS, V35_BY_UTL36);
    assert_eq!(status(V35).map(|s| s.storage_version), Ok(None));
}

#[test]
fn fixture_v3_6_status_matches_etcdutl() {
    matches_both(V36, V36_BY_UTL35, V36_STATUS);
    assert_eq!(
        status(V36).map(|s| s.storage_version),
        Ok(Some("3.6.0".to_string()))
    );
}

#[test]
fn the_user_key_is_read_from_the_stored_key_value() {
    assert_eq!(user_key(b"\x0a\x03abc\x10\x01"), Some(&b"abc"[..]));
    let long = [&[0x0a, 0x80, 0x01][..], &[b'k'; 128][..]].concat();
    assert_eq!(user_key(&long).map(<[u8]>::len), Some(128));
    assert_eq!(user_key(b"\x12\x01a"), None, "not field 1");
    assert_eq!(user_key(b"\x0a\x05ab"), None, "shorter than its length");
    assert_eq!(
        user_key(b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
        None
    );
    assert_eq!(user_key(b""), None);
}

#[test]
fn fixture_integrity_verified_mismatch_absent() {
    for file in [V35, V36] {
        assert_eq!(file.len() % 512, 32);
        assert_eq!(integrity(file), Ok(Integrity::Verified));

        let db_len = file.len() - 32;
        for at in [0, 100, db_len / 2, db_len - 1] {
            let mut changed = file.to_vec();
            changed[at] ^= 0x01;
            assert_eq!(
                integrity(changed.as_slice()),
                Ok(Integrity::Mismatch),
                "byte {at}"
            );
        }
        let mut trailer_changed = file.to_vec();
        trailer_changed[db_len + 5] ^= 0x40;
        assert_eq!(
            integrity(trailer_changed.as_slice()),
            Ok(Integrity::Mismatch)
        );

        // The database bytes alone: a backend file, same status.
        let cut = &file[..db_len];
        assert_eq!(integrity(cut), Ok(Integrity::Absent));
        assert_eq!(status(cut), status(file));
    }
}

#[test]
fn file_reader_agrees_with_slice_reader() {
    let path =
        std::env::temp_dir().join(format!("kubectl-etcd-bolt-test-{}.db", std::process::id()));
    std::fs::write(&path, V36).expect("write temp file");
    let file = std::fs::File::open(&path).expect("open temp file");
    let from_file = (status(&file), integrity(&file));
    let mut buf = [0u8; 8];
    let past_end = ReadAt::read_exact_at(&file, &mut buf, V36.len() as u64 - 4);
    drop(file);
    std::fs::remove_file(&path).expect("remove temp file");
    assert_eq!(from_file, (status(V36), Ok(Integrity::Verified)));
    assert!(past_end.is_err());
}

#[test]
fn every_prefix_of_a_real_file_is_an_error_or_a_status() {
    let total = status(V35).expect("fixture").total_size as usize;
    for n in 0..=V35.len() {
        let prefix = &V35[..n];
        let got = status(prefix);
        if n < total {
            assert!(got.is_err(), "prefix {n} of {total}");
        } else {
            assert!(got.is_ok(), "prefix {n}: {got:?}");
        }
        assert!(integrity(prefix).is_ok());
    }
    assert!(status(&V35[..total - 1]).unwrap_err().contains("truncated"));
}

#[test]
fn corrupted_bytes_never_panic() {
    for file in [V35, V36] {
        let mut copy = file.to_vec();
        let db_len = file.len() - 32;
        // Every byte of each page's header and first elements (types,
        // counts, overflow, positions, sizes, child ids), then a stride
        // through everything; a full sweep is too slow unoptimised.
        let heads = (0..db_len).step_by(PS).flat_map(|page| page..page + 80);
        let stride = (0..db_len).step_by(61);
        for at in heads.chain(stride) {
            for flip in [0x01u8, 0xFF] {
                copy[at] ^= flip;
                let _ = status(copy.as_slice());
                copy[at] ^= flip;
            }
        }
        // Whole words of 0xFF (huge positions, sizes and page ids).
        for at in (PS..db_len - 8).step_by(96) {
            let saved: [u8; 8] = copy[at..at + 8].try_into().expect("8 bytes");
            copy[at..at + 8].fill(0xFF);
            let _ = status(copy.as_slice());
            copy[at..at + 8].copy_from_slice(&saved);
        }
    }
}

#[test]
fn empty_zero_and_garbage_input_is_an_error() {
    assert!(status(&[] as &[u8])
        .unwrap_err()
        .contains("not a bolt database"));
    assert_eq!(integrity(&[] as &[u8]), Ok(Integrity::Absent));
    assert!(status(&[0u8; 16384][..]).unwrap_err().contains("magic"));
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let garbage: Vec<u8> = (0..65536)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    assert!(status(garbage.as_slice()).is_err());
    assert!(status(&[0xFFu8; 100][..]).is_err());
}

// --- Synthetic databases, to reach the paths a small etcd file does not.

const PS: usize = 4096;

fn put_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// A leaf page (header id 0): elements, then each key and value.
fn leaf(entries: &[(u32, &[u8], &[u8])]) -> Vec<u8> {
    let mut p = vec![0u8; PAGE_HEADER + ELEMENT * entries.len()];
    put_u16(&mut p, 8, LEAF_PAGE);
    put_u16(&mut p, 10, entries.len() as u16);
    for (i, (flags, k, v)) in entries.iter().enumerate() {
        let elem = PAGE_HEADER + ELEMENT * i;
        let pos = p.len() - elem;
        put_u32(&mut p, elem, *flags);
        put_u32(&mut p, elem + 4, pos as u32);
        put_u32(&mut p, elem + 8, k.len() as u32);
        put_u32(&mut p, elem + 12, v.len() as u32);
        p.extend_from_slice(k);
        p.extend_from_slice(v);
    }
    p
}

/// A branch page (header id 0) over `(first key, child page)`.
fn branch(children: &[(&[u8], u64)]) -> Vec<u8> {
    let mut p = vec![0u8; PAGE_HEADER + ELEMENT * children.len()];
    put_u16(&mut p, 8, BRANCH_PAGE);
    put_u16(&mut p, 10, children.len() as u16);
    for (i, (k, child)) in children.iter().enumerate() {
        let elem = PAGE_HEADER + ELEMENT * i;
        let pos = p.len() - elem;
        put_u32(&mut p, elem, pos as u32);
        put_u32(&mut p, elem + 4, k.len() as u32);
        put_u64(&mut p, elem + 8, *child);
        p.extend_from_slice(k);
    }
    p
}

fn bucket(root: u64) -> Vec<u8> {
    let mut v = vec![0u8; BUCKET_HEADER];
    put_u64(&mut v, 0, root);
    v
}

fn inline_bucket(page: Vec<u8>) -> Vec<u8> {
    let mut v = bucket(0);
    v.extend(page);
    v
}

fn meta_page(id: u64, root: u64, high_water: u64, txid: u64) -> Vec<u8> {
    let mut p = vec![0u8; PS];
    put_u64(&mut p, 0, id);
    put_u16(&mut p, 8, META_PAGE);
    let m = PAGE_HEADER;
    put_u32(&mut p, m, MAGIC);
    put_u32(&mut p, m + 4, VERSION);
    put_u32(&mut p, m + 8, PS as u32);
    put_u64(&mut p, m + 16, root);
    put_u64(&mut p, m + 32, 2);
    put_u64(&mut p, m + 40, high_water);
    put_u64(&mut p, m + 48, txid);
    let sum = fnv1a64(&p[m..m + META_CHECKSUMMED]);
    put_u64(&mut p, m + META_CHECKSUMMED, sum);
    p
}

/// Metas (root page 3), a freelist at page 2, and `pages` placed at their
/// ids with their overflow set; the file is `high_water` pages long.
fn db(pages: Vec<(u64, Vec<u8>)>, high_water: u64) -> Vec<u8> {
    let mut file = vec![0u8; high_water as usize * PS];
    file[..PS].copy_from_slice(&meta_page(0, 3, high_water, 4));
    file[PS..2 * PS].copy_from_slice(&meta_page(1, 3, high_water, 5));
    put_u64(&mut file, 2 * PS, 2);
    put_u16(&mut file, 2 * PS + 8, FREELIST_PAGE);
    for (id, mut page) in pages {
        put_u64(&mut page, 0, id);
        let overflow = ((page.len().max(1) - 1) / PS) as u32;
        put_u32(&mut page, 12, overflow);
        let at = id as usize * PS;
        file[at..at + page.len()].copy_from_slice(&page);
    }
    file
}

fn rev(main: u64, sub: u64) -> Vec<u8> {
    let mut k = main.to_be_bytes().to_vec();
    k.push(b'_');
    k.extend_from_slice(&sub.to_be_bytes());
    k
}

#[test]
fn synthetic_db_with_branch_overflow_inline_and_nested_buckets() {
    // a put at 2, deleted at 3 (a tombstone key ends in 't'); b put at 7.
    let (k1, k2, k3) = (rev(2, 0), [rev(3, 0), b"t".to_vec()].concat(), rev(7, 1));
    let (v1, v2) = (b"\x0a\x01a\x10\x02".as_slice(), b"\x0a\x01a".as_slice());
    // Two overflow pages: the stored KeyValue of b, padded.
    let mut big = vec![0xABu8; 2 * PS + 100];
    big[..3].copy_from_slice(b"\x0a\x01b");
    let nested = inline_bucket(leaf(&[(0, b"x", b"y")]));
    let root = leaf(&[
        (BUCKET_LEAF, b"key", &bucket(4)),
        (
            BUCKET_LEAF,
            b"meta",
            &inline_bucket(leaf(&[(0, b"storageVersion", b"3.6.0")])),
        ),
        (BUCKET_LEAF, b"zz", &bucket(9)),
    ]);
    let file = db(
        vec![
            (3, root),
            (4, branch(&[(&k1, 5), (&k3, 6)])),
            (5, leaf(&[(0, &k1, v1), (0, &k2, v2)])),
            (6, leaf(&[(0, &k3, &big)])),
            (
                9,
                leaf(&[(BUCKET_LEAF, b"child", &nested), (0, b"plain", b"")]),
            ),
        ],
        12,
    );
    let mut want = Crc32c::new();
    for part in [
        b"key".as_slice(),
        &k1,
        v1,
        &k2,
        v2,
        &k3,
        &big,
        b"meta",
        b"storageVersion",
        b"3.6.0",
        b"zz",
        b"child",
        b"plain",
        b"",
    ] {
        want.update(part);
    }
    assert_eq!(
        status(file.as_slice()),
        Ok(DbStatus {
            hash: want.finish(),
            revision: 7,
            total_keys: 6,
            live_keys: 1,
            total_size: 12 * PS as u64,
            storage_version: Some("3.6.0".to_string()),
        })
    );
    // A file with a trailer that is not a SHA-256 trailer length stays Absent.
    assert_eq!(integrity(file.as_slice()), Ok(Integrity::Absent));
}

fn one_bucket(bucket_page: u64, pages: Vec<(u64, Vec<u8>)>, high_water: u64) -> Vec<u8> {
    let mut all = vec![(3, leaf(&[(BUCKET_LEAF, b"key", &bucket(bucket_page))]))];
    all.extend(pages);
    db(all, high_water)
}

#[test]
fn a_cycle_is_an_error() {
    let file = one_bucket(
        4,
        vec![(4, branch(&[(b"a", 5)])), (5, branch(&[(b"a", 4)]))],
        6,
    );
    let err = status(file.as_slice()).unwrap_err();
    assert!(err.contains("page 4 is reached twice"), "{err}");
}

#[test]
fn a_tree_deeper_than_64_is_an_error() {
    let mut pages: Vec<(u64, Vec<u8>)> =
        (4..80).map(|id| (id, branch(&[(b"a", id + 1)]))).collect();
    pages.push((80, leaf(&[])));
    let err = status(one_bucket(4, pages, 81).as_slice()).unwrap_err();
    assert!(err.contains("more than 64 levels"), "{err}");
}

#[test]
fn a_page_of_the_wrong_type_is_an_error() {
    let err = status(one_bucket(2, vec![], 4).as_slice()).unwrap_err();
    assert!(
        err.contains("freelist page where a branch or leaf"),
        "{err}"
    );
}

#[test]
fn a_page_beyond_the_high_water_mark_is_an_error() {
    let err = status(one_bucket(40, vec![], 5).as_slice()).unwrap_err();
    assert!(err.contains("beyond the high-water mark 5"), "{err}");
    let err = status(one_bucket(4, vec![(4, branch(&[(b"a", 1)]))], 5).as_slice()).unwrap_err();
    assert!(err.contains("meta page"), "{err}");
}

/// A stored `mvccpb.KeyValue` for user key `a`.
const KV: &[u8] = b"\x0a\x01a";

#[test]
fn keys_out_of_order_are_an_error() {
    let file = one_bucket(
        4,
        vec![(4, leaf(&[(0, &rev(5, 0), KV), (0, &rev(4, 0), KV)]))],
        5,
    );
    let err = status(file.as_slice()).unwrap_err();
    assert!(err.contains("out of order"), "{err}");
}

#[test]
fn a_short_revision_key_is_an_error() {
    let file = one_bucket(4, vec![(4, leaf(&[(0, b"short", b"")]))], 5);
    let err = status(file.as_slice()).unwrap_err();
    assert!(err.contains("too short for a revision"), "{err}");
}

#[test]
fn meta_choice_and_checksums() {
    let good = one_bucket(4, vec![(4, leaf(&[(0, &rev(9, 0), KV)]))], 5);
    assert_eq!(status(good.as_slice()).map(|s| s.revision), Ok(9));

    // One bad copy: bolt uses the other.
    for corrupt in [PS + 16 + 48, 16 + 48] {
        let mut one = good.clone();
        one[corrupt] ^= 0x01;
        assert_eq!(status(one.as_slice()).map(|s| s.revision), Ok(9));
    }
    // Both bad.
    let mut both = good.clone();
    both[16 + 48] ^= 0x01;
    both[PS + 16 + 48] ^= 0x01;
    let err = status(both.as_slice()).unwrap_err();
    assert!(err.contains("both meta pages fail their checksum"), "{err}");

    // The higher txid wins: meta 1 (txid 5) points at a different root.
    let mut newer = good.clone();
    newer[PS..2 * PS].copy_from_slice(&meta_page(1, 2, 5, 5));
    assert!(status(newer.as_slice()).unwrap_err().contains("freelist"));
    newer[..PS].copy_from_slice(&meta_page(0, 3, 5, 6));
    assert_eq!(status(newer.as_slice()).map(|s| s.revision), Ok(9));

    let mut version = good.clone();
    put_u32(&mut version, 16 + 4, 1);
    put_u32(&mut version, PS + 16 + 4, 1);
    assert!(status(version.as_slice())
        .unwrap_err()
        .contains("version 1"));
}
