{
  # verl-ext with Nix: `nix build .#wheel` (the portable wheel the Docker images install), `nix build
  # .#verl-ext` (the Python package with verl 0.9.1), `nix build .#image-cuda` / `.#image-rocm` (OCI images
  # from dockerTools), `nix develop` (Rust, maturin, the Python test stack, hadolint), `nix flake check`.
  # Every input is locked by flake.lock; Rust crates come from Cargo.lock, PyPI files are fixed by hash.
  description = "verl-ext: Rust reward scoring, fused ops and reproducible images for verl";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-25.11";

  outputs =
    { self, nixpkgs }:
    let
      system = "x86_64-linux";
      version = (builtins.fromTOML (builtins.readFile ./Cargo.toml)).workspace.package.version;

      pkgs = import nixpkgs { inherit system; };
      # CUDA is unfree: accept NVIDIA's CUDA licences and nothing else (the predicate nixpkgs' CUDA docs give).
      cudaPkgs = import nixpkgs {
        inherit system;
        config = {
          cudaSupport = true;
          allowUnfreePredicate =
            pkg:
            builtins.all (
              license:
              license.free
              || builtins.elem license.shortName [
                "CUDA EULA"
                "cuDNN EULA"
                "cuTENSOR EULA"
                "NVidia OptiX EULA"
              ]
            ) (if builtins.isList pkg.meta.license then pkg.meta.license else [ pkg.meta.license ]);
        };
      };
      rocmPkgs = import nixpkgs {
        inherit system;
        config.rocmSupport = true;
      };

      # Only what a build reads, so editing tests or docs does not rebuild the wheel.
      sourceOf =
        keep:
        builtins.path {
          name = "verl-ext-source";
          path = ./.;
          filter =
            path: type:
            let
              rel = builtins.substring (builtins.stringLength (toString ./.) + 1) (-1) (toString path);
            in
            builtins.any (top: rel == top || builtins.substring 0 (builtins.stringLength top + 1) rel == top + "/") keep;
        };
      buildSource = sourceOf [
        "Cargo.toml"
        "Cargo.lock"
        "rustfmt.toml"
        "crates"
        "pyproject.toml"
        "README.md"
        "verl_ext"
        "hydra_plugins"
      ];
      testSource = sourceOf [
        "pyproject.toml"
        "tests"
      ];

      # Cargo.lock pins every crate with its checksum: no hash to keep in sync here.
      cargoDepsFor = p: p.rustPlatform.importCargoLock { lockFile = ./Cargo.lock; };

      # A PyPI wheel, fixed by its sha256 (the same files docker/requirements-*.lock lists).
      pypiWheel =
        p: pname: pversion: hash:
        p.fetchPypi {
          inherit pname hash;
          version = pversion;
          format = "wheel";
          dist = "py3";
          python = "py3";
        };

      pythonPackagesFor =
        p:
        let
          ps = p.python312Packages;
          codetiming = ps.buildPythonPackage {
            pname = "codetiming";
            version = "1.4.0";
            format = "wheel";
            src = pypiWheel p "codetiming" "1.4.0" "sha256-O4D0Cb7wCUGpdVxVJAcc4vcuqkUg9Lw1szhpzeAkzL0=";
            pythonImportsCheck = [ "codetiming" ];
          };
          # verl is not in nixpkgs: its release wheel. nixpkgs' torch/transformers/ray are newer or older than
          # verl's pins, so the version bounds are relaxed; the import check below is the gate.
          verl = ps.buildPythonPackage {
            pname = "verl";
            version = "0.9.1";
            format = "wheel";
            src = pypiWheel p "verl" "0.9.1" "sha256-225vKo2dWAjZ7DLTV6QjGf3Gln32iP+dmBAFD0m/3RQ=";
            dependencies = [
              codetiming
              ps.accelerate
              ps.datasets
              ps.dill
              ps.hydra-core
              ps.numpy
              ps.packaging
              ps.pandas
              ps.peft
              ps.pyarrow
              ps.pybind11
              ps.pylatexenc
              ps.ray
              ps.tensordict
              ps.torch
              ps.torchdata
              ps.transformers
            ];
            pythonRelaxDeps = true;
            # wandb and tensorboard are loggers verl imports only when a run asks for them.
            pythonRemoveDeps = [
              "wandb"
              "tensorboard"
            ];
            pythonImportsCheck = [ "verl" ];
          };
          verl-ext = ps.buildPythonPackage {
            pname = "verl-ext";
            inherit version;
            pyproject = true;
            src = buildSource;
            cargoDeps = cargoDepsFor p;
            nativeBuildInputs = [
              p.rustPlatform.cargoSetupHook
              p.rustPlatform.maturinBuildHook
              p.cargo
              p.rustc
            ];
            dependencies = [
              verl
              ps.tqdm
            ];
            pythonImportsCheck = [
              "verl_ext"
              "verl_ext._core"
            ];
          };
        in
        {
          inherit ps verl verl-ext;
        };

      cpu = pythonPackagesFor pkgs;

      # The portable abi3 wheel for vendor images: linked by zig against glibc 2.28 (manylinux_2_28), not
      # against nixpkgs' newer glibc. stdenv fixes SOURCE_DATE_EPOCH, so the wheel is byte-for-byte stable.
      wheel = pkgs.stdenv.mkDerivation {
        pname = "verl-ext-wheel";
        inherit version;
        src = buildSource;
        cargoDeps = cargoDepsFor pkgs;
        nativeBuildInputs = [
          pkgs.rustPlatform.cargoSetupHook
          pkgs.cargo
          pkgs.rustc
          pkgs.maturin
          pkgs.zig
          pkgs.python312
        ];
        buildPhase = ''
          runHook preBuild
          export HOME="$TMPDIR" XDG_CACHE_HOME="$TMPDIR/cache" ZIG_GLOBAL_CACHE_DIR="$TMPDIR/zig-cache"
          maturin build --release --locked --offline --zig --compatibility manylinux_2_28 \
            --target x86_64-unknown-linux-gnu --interpreter python3 --out dist
          runHook postBuild
        '';
        installPhase = ''
          runHook preInstall
          mkdir -p "$out"
          cp dist/*.whl "$out/"
          runHook postInstall
        '';
        dontFixup = true;
      };


      # An OCI image with the same layout and default command as Dockerfile.cuda / Dockerfile.rocm.
      imageFor =
        name: p:
        let
          set = pythonPackagesFor p;
          python = set.ps.python.withPackages (_: [
            set.verl-ext
            set.ps.vllm
          ]);
          # verl-ext's configs ship in the package (verl_ext/configs); the image keeps them at /opt/verl-ext/configs
          # too, for --config-path and VERL_EXT_CONFIGS (python312Packages: lib/python3.12/site-packages).
          configs = pkgs.runCommand "verl-ext-configs" { } ''
            mkdir -p "$out/opt/verl-ext"
            cp -r ${set.verl-ext}/lib/python3.12/site-packages/verl_ext/configs "$out/opt/verl-ext/configs"
          '';
        in
        pkgs.dockerTools.buildLayeredImage {
          name = "verl-ext-${name}";
          tag = version;
          contents = [
            python
            configs
            pkgs.bashInteractive
            pkgs.coreutils
            pkgs.cacert
          ];
          config = {
            Cmd = [
              "python3"
              "-m"
              "verl.trainer.main_ppo"
              "--config-path"
              "/opt/verl-ext/configs"
              "--config-name"
              "grpo_math_verl_ext"
            ];
            Env = [
              "VERL_EXT_CONFIGS=/opt/verl-ext/configs"
              "SSL_CERT_FILE=/etc/ssl/certs/ca-bundle.crt"
            ];
            WorkingDir = "/workspace";
          };
        };

      testPython = cpu.ps.python.withPackages (ps: [
        cpu.verl-ext
        ps.pytest
        ps.hypothesis
        ps.pytest-asyncio
        ps.mypy
      ]);
      rustTools = [
        pkgs.cargo
        pkgs.rustc
        pkgs.clippy
        pkgs.rustfmt
      ];
      cargoCheck =
        name: command:
        pkgs.stdenv.mkDerivation {
          name = "verl-ext-${name}";
          src = buildSource;
          cargoDeps = cargoDepsFor pkgs;
          nativeBuildInputs = [
            pkgs.rustPlatform.cargoSetupHook
            pkgs.python312
          ]
          ++ rustTools;
          # The Nix build sandbox may not allow nested user namespaces: sandbox tests then skip, not fail.
          VERL_EXT_REQUIRE_SANDBOX = "0";
          buildPhase = ''
            runHook preBuild
            export HOME="$TMPDIR"
            ${command}
            runHook postBuild
          '';
          installPhase = "touch $out";
        };
    in
    {
      packages.${system} = {
        default = cpu.verl-ext;
        verl-ext = cpu.verl-ext;
        inherit wheel;
        image-cuda = imageFor "cuda" cudaPkgs;
        image-rocm = imageFor "rocm" rocmPkgs;
      };

      devShells.${system}.default = pkgs.mkShell {
        packages = rustTools ++ [
          pkgs.maturin
          pkgs.zig
          pkgs.hadolint
          (cpu.ps.python.withPackages (ps: [
            cpu.verl
            ps.pytest
            ps.hypothesis
            ps.pytest-asyncio
            ps.mypy
            ps.tqdm
          ]))
        ];
        VERL_EXT_REQUIRE_SANDBOX = "0";
        shellHook = ''
          echo "verl-ext dev shell: maturin develop --release, then python -m pytest"
        '';
      };

      checks.${system} = {
        cargo-test = cargoCheck "cargo-test" "cargo test -p verl_ext_core -p verl_ext_sandbox --locked --offline";
        clippy = cargoCheck "clippy" "cargo clippy --workspace --all-targets --locked --offline -- -D warnings";
        pytest = pkgs.runCommand "verl-ext-pytest" { nativeBuildInputs = [ testPython ]; } ''
          export HOME="$TMPDIR" VERL_EXT_REQUIRE_SANDBOX=0
          cp -r ${testSource} src && chmod -R u+w src && cd src
          # tests/packaging checks the repository itself (git, nix, Dockerfiles): ci/check-packaging's job.
          python -m pytest -q -p no:cacheprovider -m "not gpu and not docker" --ignore=tests/packaging tests
          touch "$out"
        '';
        dockerfile-lint = pkgs.runCommand "verl-ext-hadolint" { nativeBuildInputs = [ pkgs.hadolint ]; } ''
          hadolint ${./Dockerfile.cuda} ${./Dockerfile.rocm}
          touch "$out"
        '';
      };
    };
}
