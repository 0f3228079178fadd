// The csxsim subcommands. Each takes the arguments after its name and returns an exit status;
// errors are thrown and mapped to exit statuses by main().
#pragma once

#include <string>
#include <vector>

namespace csx::cli {

using Args = std::vector<std::string>;

int calibrate_command(const Args& args);
int candidates_command(const Args& args);
int columns_command(const Args& args);
int describe_command(const Args& args);
int run_command(const Args& args);
int sweep_command(const Args& args);
int merge_command(const Args& args);
int validate_command(const Args& args);
int plan_command(const Args& args);
int platform_command(const Args& args);
int options_command(const Args& args);

}  // namespace csx::cli
