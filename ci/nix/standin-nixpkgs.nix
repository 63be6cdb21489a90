# A stand-in for nixpkgs, for evaluating flake.nix offline in CI (nixpkgs itself cannot be fetched there).
# It offers only the attributes flake.nix may use, each a real nixpkgs name: a typo or a package nixpkgs does
# not have fails the evaluation. Builders check the arguments nixpkgs would need and force them completely,
# then return a trivial derivation, so every output's drvPath can be instantiated without building anything.
{
  system,
  config ? { },
  overlays ? [ ],
}:
let
  fail = msg: builtins.throw "stand-in nixpkgs: ${msg}";
  need = what: names: args:
    builtins.all (n: args ? ${n} || fail "${what} needs `${n}`") names;
  drv =
    name: args:
    builtins.deepSeq args (derivation {
      inherit name system;
      builder = "/bin/sh";
      args = [ "-c" "echo stand-in > $out" ];
    });
  pkg = name: drv name { } // { pname = name; };
  sri = hash: builtins.match "sha256-[A-Za-z0-9+/]{43}=" hash != null || fail "not an SRI sha256: ${hash}";

  # Unfree CUDA must be accepted narrowly: CUDA redistributables yes, any other unfree package no.
  licensed = shortName: { meta.license = { free = false; inherit shortName; }; };
  unfreeOk =
    !(config ? allowUnfreePredicate)
    || (config.allowUnfreePredicate (licensed "CUDA EULA")
      && config.allowUnfreePredicate (licensed "cuDNN EULA")
      && !config.allowUnfreePredicate (licensed "unfree")
      && config.allowUnfreePredicate { meta.license = { free = true; shortName = "mit"; }; })
    || fail "allowUnfreePredicate must accept CUDA's licences and reject other unfree ones";
  unfreeAll = !(config.allowUnfree or false) || fail "allowUnfree = true accepts every unfree package; use a predicate";

  pythonSet =
    let
      ps = builtins.listToAttrs (
        map (n: { name = n; value = pkg n; }) [
          "accelerate" "datasets" "dill" "hydra-core" "hypothesis" "mypy" "numpy" "packaging" "pandas" "peft"
          "pyarrow" "pybind11" "pylatexenc" "pytest" "pytest-asyncio" "ray" "tensordict" "torch" "torchdata"
          "tqdm" "transformers" "vllm"
        ]
      ) // {
        python = python;
        buildPythonPackage =
          args:
          assert need "buildPythonPackage" [ "pname" "version" "src" ] args;
          assert (args ? format) || (args ? pyproject) || fail "buildPythonPackage ${args.pname}: format or pyproject";
          drv "python3.12-${args.pname}-${args.version}" args;
      };
      python = pkg "python3.12" // {
        pkgs = ps;
        withPackages = f: drv "python3.12-env" (f ps);
      };
    in
    ps;
in
assert unfreeOk;
assert unfreeAll;
builtins.listToAttrs (
  map (n: { name = n; value = pkg n; }) [
    "bashInteractive" "cacert" "cargo" "clippy" "coreutils" "hadolint" "maturin" "python312" "rustc" "rustfmt" "zig"
  ]
) // {
  python312Packages = pythonSet;
  fetchPypi =
    args:
    assert need "fetchPypi" [ "pname" "version" "hash" ] args;
    assert sri args.hash;
    drv "${args.pname}-${args.version}-${args.format or "sdist"}" args;
  rustPlatform = {
    cargoSetupHook = pkg "cargo-setup-hook";
    maturinBuildHook = pkg "maturin-build-hook";
    importCargoLock =
      args:
      assert need "importCargoLock" [ "lockFile" ] args;
      assert builtins.pathExists args.lockFile || fail "no lock file ${toString args.lockFile}";
      drv "cargo-vendor-dir" (builtins.readFile args.lockFile);
  };
  stdenv.mkDerivation =
    args:
    assert (args ? name) || (need "mkDerivation" [ "pname" "version" ] args);
    drv (args.name or "${args.pname}-${args.version}") args;
  runCommand = name: env: script: drv name { inherit env script; };
  mkShell = args: drv "nix-shell" args;
  dockerTools.buildLayeredImage =
    args:
    assert need "buildLayeredImage" [ "name" "tag" "contents" "config" ] args;
    assert builtins.isList args.config.Cmd || fail "image ${args.name}: config.Cmd must be a list";
    drv "${args.name}.tar.gz" args;
}
