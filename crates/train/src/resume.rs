//! Continuing a run from its checkpoint: the checkpoint must be of the same job, network and
//! data, and the run must keep its accounting (rows per step, so that epochs and the
//! learning-rate schedule still add up); otherwise the resume is refused in one line that
//! names what changed and the option that changed it.

use crate::checkpoint::{self, RunMeta};
use crate::error::ResumeAdvice;
use crate::plan::Plan;
use crate::record;
use crate::{Error, Result, Run};
use nn::{Model, Optimizer, Trainer};
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::Path;
use tensor_core::Backend;

/// The longest value shown in a message.
const SHOWN_CHARS: usize = 40;

/// The model and optimizer of the checkpoint in `run`'s folder, with the trainer's state
/// restored, after checking that the checkpoint belongs to this run.
pub(crate) fn resume<B: Backend, M: Model<B>>(
    run: &mut Run<'_, M::Config>,
    backend: &B,
    meta: &RunMeta<M::Config>,
    plan: &Plan,
    trainer: &mut Trainer,
) -> Result<(M, Box<dyn Optimizer<B>>)>
where
    M::Config: Clone + PartialEq + Serialize,
{
    let path = run.dir.join(checkpoint::FILE_NAME);
    let cannot = |e: Error| Error::Resume {
        path: path.clone(),
        source: Box::new(e),
    };
    let (path, ck) = checkpoint::read(&path).map_err(cannot)?;
    let earlier = record::read_value(&run.dir).unwrap_or_default();
    let changed = changed_inputs(&earlier, &run.record, run.settings.seed);
    let job = checkpoint::job(&ck);
    // A file without a job is not a run checkpoint: rebuilding it says so.
    if !job.is_empty() && job != meta.job {
        return Err(Error::Refused(format!(
            "{} was written by `{job}`, not `{}`",
            path.display(),
            meta.job
        )));
    }
    if checkpoint::kind(&ck) != M::KIND {
        return Err(Error::Refused(format!(
            "{} holds a `{}` network, and these options make a `{}` one{}; resume with the options it was trained with",
            path.display(),
            checkpoint::kind(&ck),
            M::KIND,
            since(&changed)
        )));
    }
    let loaded = checkpoint::rebuild::<B, M>(backend, &path, ck).map_err(cannot)?;
    check_architecture(
        &path,
        &meta.architecture,
        &loaded.meta.architecture,
        &changed,
    )?;
    check_data(run, &path, meta, &loaded.meta, &changed)?;
    check_batch(&path, &earlier, plan)?;
    let optimizer = loaded.optimizer()?;
    trainer.import_state(loaded.trainer_state()?);
    let step = trainer.state().step;
    run.reporter
        .note(&format!("resuming from {} at step {step}", path.display()));
    if let Some(before) = latest_training(&earlier).and_then(|t| t.get("total_steps")?.as_u64())
        && before != plan.total_steps
        && step < plan.total_steps
    {
        run.reporter.note(&format!(
            "note: the run is now {} steps long (it was {before}); the {} schedule spans the new length from step {step} on",
            plan.total_steps,
            run.settings.schedule.name()
        ));
    }
    Ok((loaded.model, optimizer))
}

/// Refuses a checkpoint of another network, naming the first difference.
fn check_architecture<C: Serialize + PartialEq>(
    path: &Path,
    ours: &C,
    theirs: &C,
    changed: &[String],
) -> Result<()> {
    if ours == theirs {
        return Ok(());
    }
    let a = serde_json::to_value(ours).map_err(|e| Error::json("the architecture", e))?;
    let b = serde_json::to_value(theirs).map_err(|e| Error::json("the architecture", e))?;
    let show = |v: Option<Value>| v.map_or("absent".into(), |v| v.to_string());
    let (field, ours, theirs) = io::checkpoint::first_difference(&a, &b)
        .map(|d| (d.path, show(d.expected), show(d.found)))
        .unwrap_or_default();
    Err(Error::Refused(format!(
        "{} holds a different network (first difference: architecture.{field} is {theirs} in the checkpoint, {ours} with these options){}; resume with the options it was trained with",
        path.display(),
        since(changed)
    )))
}

/// Refuses a checkpoint trained on other data unless forced (then says so).
fn check_data<C>(
    run: &mut Run<'_, C>,
    path: &Path,
    now: &RunMeta<C>,
    stored: &RunMeta<C>,
    changed: &[String],
) -> Result<()> {
    let (Some(now), Some(stored)) = (&now.data, &stored.data) else {
        return Ok(());
    };
    let Some(difference) = now.difference(stored) else {
        return Ok(());
    };
    if run.settings.force {
        run.reporter.note(&format!(
            "note: resuming on other data than the checkpoint's (forced): {difference}"
        ));
        return Ok(());
    }
    let earlier = record::read_value(&run.dir).unwrap_or_default();
    let held_out = validation_note(&earlier, &run.record);
    let hint = if !changed.is_empty() {
        format!("{}{held_out}", since(changed))
    } else {
        held_out
    };
    let split = run
        .record
        .get("options")
        .and_then(|o| o.get("val_fraction"))
        .is_some();
    Err(Error::ResumeRefused {
        message: format!(
            "{} was trained on other data: {difference}{hint}",
            path.display()
        ),
        advice: ResumeAdvice::SameDataOrForce { split },
    })
}

/// `; early stopping holds out ...` when early stopping (`options.patience_epochs`) is set
/// in one record and not the other: it holds out validation rows from the training rows, so
/// the rows trained on differ. Empty otherwise.
fn validation_note(earlier: &Map<String, Value>, now: &Map<String, Value>) -> String {
    let patience = |r: &Map<String, Value>| {
        r.get("options")
            .and_then(|o| o.get("patience_epochs"))
            .is_some_and(|v| !v.is_null())
    };
    match (patience(earlier), patience(now)) {
        (false, true) => "; early stopping (patience) holds out validation rows from the \
            training rows, and the run was trained without it, on all of them"
            .into(),
        (true, false) => "; the run was trained with early stopping (patience), which held \
            out validation rows from the training rows, and is now asked to train without it"
            .into(),
        _ => String::new(),
    }
}

/// Refuses another batch size than the run's: its epochs and schedule would not add up.
fn check_batch(path: &Path, earlier: &Map<String, Value>, plan: &Plan) -> Result<()> {
    let Some(before) = latest_training(earlier).and_then(|t| t.get("batch")) else {
        return Ok(());
    };
    let before = match before {
        Value::Number(n) => n.as_u64().map(|n| n as usize),
        _ => None,
    };
    if before == plan.batch {
        return Ok(());
    }
    let text =
        |b: Option<usize>| b.map_or("full batches".into(), |b| format!("batches of {b} rows"));
    Err(Error::ResumeRefused {
        message: format!(
            "{} was trained on {}, and these options give {}: its epochs and learning-rate schedule would no longer add up",
            path.display(),
            text(before),
            text(plan.batch)
        ),
        advice: ResumeAdvice::Batch(before),
    })
}

/// The training settings of the latest part of a recorded run.
fn latest_training(record: &Map<String, Value>) -> Option<&Map<String, Value>> {
    let resumed = record
        .get("resumes")
        .and_then(Value::as_array)
        .and_then(|r| r.last())
        .and_then(|r| r.get("training"));
    resumed
        .or_else(|| record.get("training"))
        .and_then(Value::as_object)
}

/// ` (changed since the checkpoint: a, b)`, or nothing.
fn since(changed: &[String]) -> String {
    if changed.is_empty() {
        String::new()
    } else {
        format!(" (changed since the checkpoint: {})", changed.join(", "))
    }
}

/// The job's recorded options and data entries (and the seed) that differ between the
/// earlier record and this run's, as `options.arch "hashgrid" -> "siren"` (at most four).
pub(crate) fn changed_inputs(
    earlier: &Map<String, Value>,
    now: &Map<String, Value>,
    seed: u64,
) -> Vec<String> {
    if earlier.is_empty() {
        return Vec::new();
    }
    let mut changed = Vec::new();
    if let Some(before) = earlier.get("seed").and_then(Value::as_u64)
        && before != seed
    {
        changed.push(format!("seed {before} -> {seed}"));
    }
    for section in ["data", "options"] {
        let (Some(a), Some(b)) = (
            earlier.get(section).and_then(Value::as_object),
            now.get(section).and_then(Value::as_object),
        ) else {
            continue;
        };
        let keys = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k)));
        for key in keys {
            let (x, y) = (a.get(key).map(as_given), b.get(key).map(as_given));
            if x != y && !is_derived(section, key) {
                changed.push(format!(
                    "{section}.{key} {} -> {}",
                    shown(x.as_ref()),
                    shown(y.as_ref())
                ));
            }
        }
    }
    changed.truncate(4);
    changed
}

/// `v` with every number that is a `float32` written as that `float32`'s shortest decimal
/// (`0.20000000298023224`, an `f32` option recorded through `f64`, becomes `0.2`), so that
/// settings compare and show at the precision the user gave them.
fn as_given(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => n
            .as_f64()
            .filter(|&x| f64::from(x as f32) == x)
            .and_then(|x| format!("{}", x as f32).parse::<f64>().ok())
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| v.clone(), Value::Number),
        Value::Array(items) => Value::Array(items.iter().map(as_given).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, x)| (k.clone(), as_given(x))).collect())
        }
        _ => v.clone(),
    }
}

/// Entries that follow from others (sizes, counts, hashes), not chosen by the user.
fn is_derived(section: &str, key: &str) -> bool {
    section == "data"
        && matches!(
            key,
            "bytes"
                | "sha256"
                | "rows"
                | "points_used"
                | "points_left_out"
                | "line_art"
                | "width"
                | "height"
                | "channels"
        )
}

/// A value for a message: JSON text, at most [`SHOWN_CHARS`] characters.
fn shown(v: Option<&Value>) -> String {
    let text = v.map_or("absent".to_string(), Value::to_string);
    if text.chars().count() <= SHOWN_CHARS {
        return text;
    }
    let cut: String = text.chars().take(SHOWN_CHARS).collect();
    format!("{cut}...")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn changed_options_and_data_are_named() {
        let earlier = object(json!({
            "seed": 42,
            "options": {"arch": "hashgrid", "size": 64},
            "data": {"path": "a.png", "bytes": 10, "sha256": "x"},
        }));
        let now = object(json!({
            "options": {"arch": "siren", "size": 64},
            "data": {"path": "b.png", "bytes": 12, "sha256": "y"},
        }));
        let changed = changed_inputs(&earlier, &now, 7);
        assert_eq!(
            changed,
            [
                "seed 42 -> 7",
                r#"data.path "a.png" -> "b.png""#,
                r#"options.arch "hashgrid" -> "siren""#
            ]
        );
        assert!(changed_inputs(&earlier, &earlier, 42).is_empty());
        assert!(changed_inputs(&Map::new(), &now, 7).is_empty());
    }

    /// An `f32` option recorded through `f64` (`0.20000000298023224`) is the `0.2` the
    /// user gave: no change, and shown as given where it did change.
    #[test]
    fn settings_compare_at_the_precision_given() {
        let earlier = object(json!({
            "options": {"test_fraction": 0.2, "val_fraction": null, "lr": 0.01},
        }));
        let now = object(json!({
            "options": {
                "test_fraction": f64::from(0.2f32),
                "val_fraction": f64::from(0.3f32),
                "lr": f64::from(0.01f32),
            },
        }));
        assert_eq!(f64::from(0.2f32), 0.20000000298023224);
        assert_eq!(
            changed_inputs(&earlier, &now, 0),
            ["options.val_fraction null -> 0.3"]
        );
        // A real difference below f32 precision of an f64 setting still shows.
        let close = object(json!({
            "options": {"test_fraction": 0.2, "val_fraction": null, "lr": 0.010000001},
        }));
        assert_eq!(changed_inputs(&earlier, &close, 0).len(), 1);
    }

    #[test]
    fn early_stopping_is_named_as_what_holds_out_rows() {
        let without = object(json!({"options": {"patience_epochs": null}}));
        let with = object(json!({"options": {"patience_epochs": 2}}));
        let note = validation_note(&without, &with);
        assert!(note.contains("holds out validation rows"), "{note}");
        assert!(!note.contains("--"), "{note}");
        assert!(validation_note(&with, &without).contains("trained with early stopping"));
        assert_eq!(validation_note(&with, &with), "");
        assert_eq!(validation_note(&without, &without), "");
    }

    #[test]
    fn long_values_are_cut() {
        let long = Value::String("x".repeat(1000));
        let text = shown(Some(&long));
        assert!(text.len() < 50 && text.ends_with("..."), "{text}");
        assert_eq!(shown(None), "absent");
    }
}
