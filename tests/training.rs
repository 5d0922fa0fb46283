//! Training from scratch works (src/training.rs, src/tasks.rs): on each toy task a seeded run
//! reaches a stated accuracy within a fixed number of steps, the same seed gives the same
//! losses, and the switches the lesson turns off make learning measurably worse.

use attnscope::tasks::{Task, TaskSpec};
use attnscope::training::{Optimizer, Setup, Trainer};
use attnscope::RunOptions;

fn setup(task: Task, length: usize) -> Setup {
    Setup {
        task: TaskSpec::new(task, length, 8).unwrap(),
        layers: 1,
        heads: 2,
        d_model: 32,
        optimizer: Optimizer::Adam { lr: 3e-3 },
        batch: 16,
        seed: 1,
        opts: RunOptions::default(),
    }
}

/// Steps until the held-out accuracy (checked every 50 steps) reaches `goal`, or `None`.
fn steps_to(setup: Setup, goal: f32, max_steps: usize) -> Option<usize> {
    let mut trainer = Trainer::new(setup).unwrap();
    while trainer.step < max_steps {
        trainer.step().unwrap();
        if trainer.step % 50 == 0 {
            let acc = trainer.evaluate(64, 99).unwrap();
            eprintln!("step {} accuracy {acc:.3}", trainer.step);
            if acc >= goal {
                return Some(trainer.step);
            }
        }
    }
    None
}

#[test]
fn reverse_is_learned() {
    let steps = steps_to(setup(Task::Reverse, 8), 0.95, 1500);
    assert!(steps.is_some(), "reverse of length 8 not at 95% within 1500 steps");
}

#[test]
fn every_task_is_learned() {
    // (task, length, accuracy, within steps): the figures the playground states
    for (task, length, goal, max) in [
        (Task::Copy, 8, 0.95, 600),
        (Task::Sort, 6, 0.90, 1500),
        (Task::AfterMarker, 8, 0.95, 1500),
        (Task::Coreference, 5, 0.99, 600),
    ] {
        let steps = steps_to(setup(task, length), goal, max);
        assert!(steps.is_some(), "{task:?} of length {length} not at {goal} within {max} steps");
    }
}

#[test]
fn the_same_seed_gives_the_same_losses_and_another_seed_others() {
    let losses = |seed: u64| {
        let mut t = Trainer::new(Setup { seed, ..setup(Task::Reverse, 6) }).unwrap();
        (0..5).map(|_| t.step().unwrap().loss).collect::<Vec<f32>>()
    };
    assert_eq!(losses(3), losses(3));
    assert_ne!(losses(3), losses(4));
}

/// The lesson's claim, measured: without residual connections a 4-layer stack learns far
/// more slowly (its lower layers' gradients fade).
#[test]
fn residuals_off_make_a_deep_model_learn_slower() {
    let deep = |residual: bool| {
        let s = Setup { layers: 4, opts: RunOptions { residual, ..RunOptions::default() }, ..setup(Task::Reverse, 6) };
        let mut t = Trainer::new(s).unwrap();
        let mut last = None;
        for _ in 0..150 {
            last = Some(t.step().unwrap());
        }
        (t.evaluate(64, 99).unwrap(), last.unwrap())
    };
    let (with, report_with) = deep(true);
    let (without, report_without) = deep(false);
    eprintln!("4 layers, 150 steps: accuracy {with} with residuals, {without} without");
    eprintln!("grad norms with: {:?}\nwithout: {:?}", report_with.grad_norms, report_without.grad_norms);
    assert!(with > without + 0.2, "with residuals {with}, without {without}");
}

#[test]
fn bad_setups_get_a_message() {
    let err = |s: Setup| Trainer::new(s).unwrap_err().to_string();
    assert!(err(Setup { heads: 3, ..setup(Task::Copy, 4) }).contains("divisible by the heads"));
    assert!(err(Setup { layers: 0, ..setup(Task::Copy, 4) }).contains("layers"));
    assert!(err(Setup { optimizer: Optimizer::Sgd { lr: f32::NAN }, ..setup(Task::Copy, 4) }).contains("learning rate"));
    assert!(TaskSpec::new(Task::Copy, 0, 8).unwrap_err().to_string().contains("length"));
    assert!(Task::parse("juggle").unwrap_err().to_string().contains("choose one of copy, reverse"));
}

/// The trained model's file opens as any model file does, with the same numbers.
#[test]
fn the_trained_file_opens_with_the_same_numbers() {
    let mut t = Trainer::new(setup(Task::Reverse, 4)).unwrap();
    for _ in 0..3 {
        t.step().unwrap();
    }
    let opened = attnscope::Model::from_safetensors(&t.file().unwrap()).unwrap();
    let ex = t.sample(7);
    let opts = RunOptions::default();
    assert_eq!(opened.logits(&ex.src, &ex.tgt, &opts).unwrap(), t.model().logits(&ex.src, &ex.tgt, &opts).unwrap());
}

/// Each task's rule answers a typed source as it labels its own examples, and says when it has
/// no answer.
#[test]
fn the_task_rule_answers_typed_sources() {
    let mut rng = oorandom::Rand32::new(11);
    for task in Task::ALL {
        let spec = TaskSpec::new(task, 6, 8).unwrap();
        for _ in 0..50 {
            let ex = spec.example(&mut rng);
            let labels: Vec<u32> = ex.labels[..ex.labels.len() - 1].iter().map(|&l| l as u32).collect();
            assert_eq!(spec.answer(&ex.src), Some(labels), "{task:?}");
        }
    }
    let id = |spec: &TaskSpec, words: &str| -> Vec<u32> {
        let v = spec.vocab();
        words.split(' ').map(|w| v.iter().position(|x| x == w).unwrap() as u32).collect()
    };
    let marker = TaskSpec::new(Task::AfterMarker, 4, 8).unwrap();
    assert_eq!(marker.answer(&id(&marker, "a # c d")), Some(id(&marker, "c")));
    assert_eq!(marker.answer(&id(&marker, "a b c d")), None, "no marker");
    assert_eq!(marker.answer(&id(&marker, "a # c #")), None, "two markers");
    let coref = TaskSpec::new(Task::Coreference, 5, 8).unwrap();
    assert_eq!(coref.answer(&id(&coref, "tom likes ann . she")), Some(id(&coref, "ann")));
    assert_eq!(coref.answer(&id(&coref, "tom likes ann . he")), Some(id(&coref, "tom")));
    assert_eq!(coref.answer(&id(&coref, "eve likes ann . she")), None, "two names agree");
    assert_eq!(coref.answer(&id(&coref, "tom likes ann . ann")), None, "no pronoun");
}
