use super::*;
use crate::event::NO_CPU;
use proptest::prelude::*;
use std::io::Cursor;

fn sample() -> Vec<Event> {
    vec![
        Event::new(0, Kind::Release, NO_CPU, 0, 0),
        Event::new(0, Kind::SwitchIn, 1, 0, 0),
        Event::new(5, Kind::SwitchOut, 1, 0, 0),
        Event::new(6, Kind::Migrate, 0, 3, 9).with_arg(1),
        Event::new(u64::MAX, Kind::LockWaitEnd, u32::MAX, u32::MAX, u64::MAX).with_arg(u64::MAX),
    ]
}

fn meta() -> Meta {
    let mut extra = Map::new();
    extra.insert("seed".into(), Value::from(42));
    Meta {
        engine: Some("sim".into()),
        cpus: Some(2),
        policy: Some("gedf".into()),
        tasks: vec![
            TaskMeta {
                name: Some("τ0 ctl".into()),
                deadline_ns: Some(10),
                split: vec![
                    PartMeta {
                        cpu: 1,
                        budget_ns: 3,
                    },
                    PartMeta {
                        cpu: 0,
                        budget_ns: 2,
                    },
                ],
                period_ns: Some(12),
                wcet_ns: Some(5),
                offset_ns: Some(1),
            },
            TaskMeta::default(),
        ],
        extra,
    }
}

#[test]
fn round_trip() {
    let buf = write(Vec::new(), &meta(), &sample()).unwrap();
    let t = read(Cursor::new(&buf)).unwrap();
    assert_eq!(t.meta, meta());
    assert_eq!(t.events, sample());
    // Records start 8-aligned and the layout is exact.
    let meta_len = u32::from_le_bytes([buf[28], buf[29], buf[30], buf[31]]) as usize;
    let off = HEADER_SIZE + meta_len + padding(meta_len as u32);
    assert_eq!(off % 8, 0);
    assert_eq!(buf.len(), off + RECORD_SIZE * sample().len());
    let r = &buf[off + RECORD_SIZE * 3..off + RECORD_SIZE * 4];
    assert_eq!(&r[0..8], &6u64.to_le_bytes());
    assert_eq!(&r[8..16], &9u64.to_le_bytes());
    assert_eq!(&r[16..24], &1u64.to_le_bytes());
    assert_eq!(&r[24..28], &3u32.to_le_bytes());
    assert_eq!(&r[28..32], &0u32.to_le_bytes());
    assert_eq!(&r[32..34], &6u16.to_le_bytes());
    assert_eq!(&r[34..40], &[0u8; 6]);
}

#[test]
fn header_bytes() {
    let buf = write(Vec::new(), &Meta::default(), &[]).unwrap();
    assert_eq!(&buf[0..8], b"SLTRACE\0");
    assert_eq!(&buf[8..12], &1u32.to_le_bytes());
    assert_eq!(&buf[12..16], &[0; 4]);
    assert_eq!(&buf[16..24], &[0; 8]);
    assert_eq!(&buf[24..28], &40u32.to_le_bytes());
    assert_eq!(&buf[28..32], &2u32.to_le_bytes()); // "{}"
    assert_eq!(&buf[32..34], b"{}");
    assert_eq!(buf.len(), 40);
}

#[test]
fn streaming_until_eof_and_patch() {
    let mut tw = TraceWriter::new(Cursor::new(Vec::new()), &meta(), None).unwrap();
    for e in sample() {
        tw.push(&e).unwrap();
    }
    let unpatched = tw.w.get_ref().clone();
    let t = read(Cursor::new(&unpatched)).unwrap();
    assert_eq!(t.events, sample());
    // A crash mid-record: strict read reports truncation, recovery mode drops the tail.
    let mut crashed = unpatched.clone();
    crashed.extend_from_slice(&[1, 2, 3]);
    assert!(matches!(
        read(Cursor::new(&crashed)),
        Err(TraceError::Truncated("records"))
    ));
    let rec = TraceReader::new(Cursor::new(&crashed))
        .unwrap()
        .allow_partial_tail(true)
        .read_all()
        .unwrap();
    assert_eq!(rec.events, sample());
    // Clean finish patches the count.
    let patched = tw.finish_with_count().unwrap().into_inner();
    assert_eq!(&patched[16..24], &5u64.to_le_bytes());
    let r = TraceReader::new(Cursor::new(&patched)).unwrap();
    assert_eq!(r.announced(), Some(5));
    assert_eq!(r.read_all().unwrap().events, sample());
}

#[test]
fn typed_errors() {
    let good = write(Vec::new(), &meta(), &sample()).unwrap();
    let err = |b: &[u8]| read(Cursor::new(b)).unwrap_err();
    assert!(matches!(err(b""), TraceError::Truncated("header")));
    assert!(matches!(err(b"SLTR"), TraceError::Truncated("header")));
    assert!(matches!(err(b"NOTATRACEFILE"), TraceError::BadMagic));
    let mut b = good.clone();
    b[8] = 2;
    assert!(matches!(err(&b), TraceError::UnsupportedVersion(2)));
    let mut b = good.clone();
    b[15] = 1;
    assert!(matches!(err(&b), TraceError::UnsupportedFlags(_)));
    let mut b = good.clone();
    b[12] = 1; // informational flag: ignored
    assert!(read(Cursor::new(&b)).is_ok());
    let mut b = good.clone();
    b[24] = 32;
    assert!(matches!(err(&b), TraceError::BadRecordSize(32)));
    let mut b = good.clone();
    b[31] = 0xFF;
    assert!(matches!(err(&b), TraceError::MetadataTooLarge(_)));
    assert!(matches!(
        err(&good[..40]),
        TraceError::Truncated("metadata")
    ));
    assert!(matches!(
        err(&good[..good.len() - 1]),
        TraceError::Truncated("records")
    ));
    let mut b = good.clone();
    b.push(0);
    assert!(matches!(err(&b), TraceError::TrailingBytes(5)));
    let mut b = good.clone();
    let k = b.len() - RECORD_SIZE + 32;
    b[k] = 99;
    assert!(matches!(
        err(&b),
        TraceError::UnknownKind { index: 4, code: 99 }
    ));
    let mut b = write(Vec::new(), &Meta::default(), &[]).unwrap();
    b[32] = b'[';
    assert!(matches!(err(&b), TraceError::BadMetadata(_)));
    // A task's times must be whole ns: each key named in the error.
    for key in ["deadline_ns", "period_ns", "wcet_ns", "offset_ns"] {
        let v = serde_json::json!({"tasks": [{key: "ten"}]});
        match Meta::from_json(v) {
            Err(TraceError::BadMetadata(m)) => assert_eq!(m, format!("task {key}")),
            other => panic!("{key}: {other:?}"),
        }
    }
    // Count mismatch on write.
    let mut tw = TraceWriter::new(Vec::new(), &Meta::default(), Some(2)).unwrap();
    tw.push(&sample()[0]).unwrap();
    assert!(matches!(
        tw.finish(),
        Err(TraceError::CountMismatch {
            announced: 2,
            written: 1
        })
    ));
    // Huge announced count: no giant allocation, just truncation.
    let mut b = write(Vec::new(), &Meta::default(), &[]).unwrap();
    b[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(err(&b), TraceError::Truncated("records")));
}

#[test]
fn file_round_trip() {
    let dir = std::env::temp_dir().join(format!("schedlab-trace-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("t.trace");
    write_file(&p, &meta(), &sample()).unwrap();
    let t = read_file(&p).unwrap();
    assert_eq!(t.events, sample());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn arb_event() -> impl Strategy<Value = Event> {
    (
        any::<u64>(),
        0..Kind::ALL.len(),
        any::<u32>(),
        any::<u32>(),
        any::<u64>(),
        any::<u64>(),
        any::<u32>(),
    )
        .prop_map(|(time, k, cpu, task, seq, arg, strand)| Event {
            time,
            kind: Kind::ALL[k],
            cpu,
            task,
            seq,
            arg,
            strand,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = read(Cursor::new(&bytes));
        // Also with a valid header prefix so the record and metadata paths are reached.
        let mut b = write(Vec::new(), &Meta::default(), &[]).unwrap();
        b.extend_from_slice(&bytes);
        let _ = read(Cursor::new(&b));
        let _ = TraceReader::new(Cursor::new(&b)).map(|r| r.allow_partial_tail(true).read_all());
    }

    #[test]
    fn events_round_trip(events in proptest::collection::vec(arb_event(), 0..50), until_eof in any::<bool>()) {
        let mut tw = TraceWriter::new(Vec::new(), &meta(), (!until_eof).then_some(events.len() as u64)).unwrap();
        for e in &events {
            tw.push(e).unwrap();
        }
        let buf = tw.finish().unwrap();
        let t = read(Cursor::new(&buf)).unwrap();
        prop_assert_eq!(t.events, events);
        prop_assert_eq!(t.meta, meta());
    }
}
