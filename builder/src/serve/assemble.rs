//! Joining the parts of an uploaded file and publishing it.
//!
//! When every part of a file is in the store, the parts are read into one model, in part
//! order, and written back as one symbfile (the download layout's `ranges` or
//! `returnpads`, zstd-compressed); range files are also written as a Lidia file, which
//! symbolize requests answer in place. The objects are written in an order that makes
//! the file visible only when it is whole: the Lidia file after the ranges, and
//! `metadata.json`, which devfiler reads first, last. The parts are removed after that.
//! Joining is deterministic, so two instances that both find the last part write the
//! same bytes; a crash in between leaves the parts, and the next part received (a retry)
//! joins them again. [`publish`] is the step after the parts are gathered, also taken by
//! a range file made from a debug file fetched from debuginfod ([`super::debuginfod`]).

use bytes::Bytes;

use super::reply::{Failure, Refused};
use super::store::{parts_dir, published_dir};
use super::upload::{chain, unavailable};
use super::State;
use crate::model::Model;
use crate::readback;
use crate::symbfile::fileid::FileId;

/// The two files an executable's symbols come in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// Range records.
    Ranges,
    /// Return-pad records.
    ReturnPads,
}

impl FileKind {
    /// The name of its folder of parts and of its published object.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Ranges => "ranges",
            FileKind::ReturnPads => "returnpads",
        }
    }
}

/// zstd level of published files: the download layout is written once and read often.
const ZSTD_LEVEL: i32 = 9;

/// Publishes the file when all `parts` parts of it are in the store, `part` being the one
/// just stored.
pub async fn publish_when_complete(
    state: &State,
    kind: FileKind,
    id: FileId,
    (part, parts): (u32, u32),
) -> Result<(), Refused> {
    let dir = format!("{}/{parts}", parts_dir(id, kind.name()));
    // Parts sent in order (or in reverse, or by a few workers each taking a stretch)
    // usually leave a neighbour of the part just stored missing: two lookups then tell
    // that the file is not complete, and only the last parts list the folder. Listing it
    // for every part would cost an upload of n parts n² listed entries.
    for neighbour in [(part + 1) % parts, (part + parts - 1) % parts] {
        if !state
            .store
            .exists(&format!("{dir}/{neighbour}"))
            .await
            .map_err(unavailable)?
        {
            return Ok(());
        }
    }
    let received = state.store.list(&dir).await.map_err(unavailable)?;
    let have: std::collections::BTreeSet<u32> = received
        .iter()
        .filter_map(|l| l.name.parse().ok())
        .collect();
    if (0..parts).any(|p| !have.contains(&p)) {
        return Ok(());
    }
    let mut bodies = Vec::with_capacity(parts as usize);
    for n in 0..parts {
        match state
            .store
            .get(&format!("{dir}/{n}"))
            .await
            .map_err(unavailable)?
        {
            Some(body) => bodies.push(body),
            // Another instance joined them first and removed the parts.
            None => return Ok(()),
        }
    }
    publish(state, kind, id, bodies).await?;
    for n in 0..parts {
        state
            .store
            .delete(&format!("{dir}/{n}"))
            .await
            .map_err(unavailable)?;
    }
    Ok(())
}

/// Publishes the file of `kind` for `id` made of `bodies`, each a complete symbfile (the
/// parts of an upload in order, or one file made here): joined, written in the order that
/// makes it visible only when whole, and forgotten by the cache.
pub async fn publish(
    state: &State,
    kind: FileKind,
    id: FileId,
    bodies: Vec<Bytes>,
) -> Result<(), Refused> {
    let joined = tokio::task::spawn_blocking(move || join(&bodies, kind))
        .await
        .map_err(|e| Refused::new(Failure::Internal, e.to_string()))??;

    let published = published_dir(id);
    let mut objects = vec![(format!("{published}/{}", kind.name()), joined.symbfile)];
    if let Some(lidia) = joined.lidia {
        objects.push((format!("{published}/ranges.lidia"), lidia));
        objects.push((format!("{published}/metadata.json"), metadata(id)));
    }
    for (key, bytes) in objects {
        state.metrics.stored(bytes.len());
        state.store.put(&key, bytes).await.map_err(unavailable)?;
    }
    state.cache.forget(id);
    Ok(())
}

/// What a complete file is published as.
struct Joined {
    /// The joined symbfile, zstd-compressed.
    symbfile: Bytes,
    /// For ranges, the Lidia file.
    lidia: Option<Bytes>,
}

fn join(bodies: &[Bytes], kind: FileKind) -> Result<Joined, Refused> {
    let mut model = Model::default();
    for (part, body) in bodies.iter().enumerate() {
        // Each part was checked when it came in (a part that fails now was changed in the
        // store), and a file made from a debug file was written by the library.
        let read = readback::symbfile::read(body, "part").map_err(|e| {
            Refused::new(
                Failure::Internal,
                format!("stored part {part} no longer reads: {}", chain(&e)),
            )
        })?;
        model.functions.extend(read.functions);
        model.return_pads.extend(read.return_pads);
    }
    let internal = |e: &dyn std::error::Error| Refused::new(Failure::Internal, chain(e));
    let symbfile = crate::symbfile::model::write_model(&model).map_err(|e| internal(&e))?;
    let compressed = zstd::encode_all(&symbfile[..], ZSTD_LEVEL).map_err(|e| internal(&e))?;
    let lidia = (kind == FileKind::Ranges).then(|| crate::lidia::model::write_model(&model));
    Ok(Joined {
        symbfile: compressed.into(),
        lidia: lidia.map(Bytes::from),
    })
}

/// devfiler's `metadata.json`: the ranges are under the executable's own FileID (an
/// upload does not say which debug file they came from).
fn metadata(id: FileId) -> Bytes {
    Bytes::from(crate::symbfile::upload::metadata_json(id))
}
