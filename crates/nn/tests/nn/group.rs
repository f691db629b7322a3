//! A group of threads joined by an in-memory sum: the processes of a data-parallel run in
//! the tests.

use crate::common::T;
use nn::Replicas;
use std::sync::{Arc, Barrier, Mutex};

/// The group the threads of one test form: a sum through shared memory, of host values or,
/// `on_device`, of the trainer's tensors (as NCCL sums GPU buffers).
#[derive(Debug)]
pub struct Group {
    pub size: usize,
    total: Mutex<Vec<f64>>,
    barrier: Barrier,
    on_device: bool,
}

impl Group {
    pub fn new(size: usize, on_device: bool) -> Arc<Group> {
        Arc::new(Group {
            size,
            total: Mutex::new(Vec::new()),
            barrier: Barrier::new(size),
            on_device,
        })
    }
}

/// One thread's membership of a [`Group`].
#[derive(Debug)]
pub struct Member {
    pub rank: usize,
    pub group: Arc<Group>,
}

impl Replicas for Member {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.group.size
    }
    fn sum(&self, values: &mut [f32]) -> Result<(), String> {
        {
            let mut total = self.group.total.lock().unwrap();
            total.resize(values.len(), 0.0);
            for (t, v) in total.iter_mut().zip(values.iter()) {
                *t += f64::from(*v);
            }
        }
        self.group.barrier.wait();
        {
            let total = self.group.total.lock().unwrap();
            for (v, t) in values.iter_mut().zip(total.iter()) {
                *v = *t as f32;
            }
        }
        if self.group.barrier.wait().is_leader() {
            self.group.total.lock().unwrap().clear();
        }
        self.group.barrier.wait();
        Ok(())
    }
    fn sums_on_device(&self) -> bool {
        self.group.on_device
    }
    fn sum_on_device(&self, values: &mut dyn std::any::Any) -> Result<(), String> {
        let t = values.downcast_mut::<T>().ok_or("not a CPU tensor")?;
        let mut host = t.to_vec().map_err(|e| e.to_string())?;
        self.sum(&mut host)?;
        t.upload(&host).map_err(|e| e.to_string())
    }
}
